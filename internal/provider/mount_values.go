package provider

import (
	"context"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// Conversions of optional Terraform values into the engine's mount input.

// strPtr returns the value of a known, non-null string, else nil.
func strPtr(v types.String) *string {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	s := v.ValueString()
	return &s
}

func intPtr(v types.Int64) *int64 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	n := v.ValueInt64()
	return &n
}

func intOr(v types.Int64, def int64) int64 {
	if p := intPtr(v); p != nil {
		return *p
	}
	return def
}

func stringList(ctx context.Context, l types.List, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []string
	diags.Append(l.ElementsAs(ctx, &out, false)...)
	return out
}

// optionList turns a map of possibly-null strings into ordered options
// (Terraform maps are ordered by key).
func optionList(m types.Map) []mount.Option {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	elems := m.Elements()
	var out []mount.Option
	for _, k := range sandboxSortedKeys(elems) {
		s, _ := elems[k].(types.String)
		out = append(out, mount.Option{Key: k, Value: strPtr(s)})
	}
	return out
}

func sandboxSortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
