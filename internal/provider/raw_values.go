package provider

import "github.com/hashicorp/terraform-plugin-go/tftypes"

// rawAttrs returns the attributes of a raw object value (a config, plan or
// state), nil when it is null, unknown or not an object. Reading a few
// attributes this way skips the framework's schema walk per attribute and
// its conversion of the whole model.
func rawAttrs(v tftypes.Value) map[string]tftypes.Value {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	var m map[string]tftypes.Value
	if v.As(&m) != nil {
		return nil
	}
	return m
}

// rawString returns a known, non-null string value; ok is false for null,
// unknown, missing (the zero Value) and non-string values.
func rawString(v tftypes.Value) (s string, ok bool) {
	if v.Type() == nil || !v.IsKnown() || v.IsNull() {
		return "", false
	}
	return s, v.As(&s) == nil
}
