package provider

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// At validate and plan a collection given by a variable known only at apply
// (cap_add = var.caps) is unknown, or holds unknown elements: converting it
// with ElementsAs is an error ("Value Conversion Error"), so plan-time checks
// look at it through these.

// knownStrings is the known elements of a set of strings: none when the set
// is null or unknown, and unknown elements (a variable not known before
// apply) left out. A plan-time check sees what is known and leaves the rest
// to the check of the next plan or the apply.
func knownStrings(set types.Set) []string {
	if set.IsNull() || set.IsUnknown() {
		return nil
	}
	var out []string
	for _, e := range set.Elements() {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out = append(out, s.ValueString())
		}
	}
	return out
}

// partlyUnknown reports whether a collection is unknown or holds an
// unknown element.
func partlyUnknown(v interface {
	IsUnknown() bool
}) bool {
	if v.IsUnknown() {
		return true
	}
	var elems []attr.Value
	switch c := v.(type) {
	case types.Set:
		elems = c.Elements()
	case types.List:
		elems = c.Elements()
	case types.Map:
		for _, e := range c.Elements() {
			elems = append(elems, e)
		}
	}
	return slices.ContainsFunc(elems, attr.Value.IsUnknown)
}
