package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

// The manifest data source's `environment`: an object whose members are
// the Python SDK's environment values (a string, a typed value
// { type = "str", value = ... }, or an entry { description, ephemeral,
// value = <typed value> }), read with the Python SDK's rules.

const manifestEnvDescription = "Environment variables of the manifest: name to a string, a typed value " +
	"`{ type = \"str\", value = \"...\" }` or an entry `{ description, ephemeral, value }`, written as the Python SDK " +
	"writes them and checked at plan time. Kept in state in clear text (sensitive in `json`, replaced in `review`): give " +
	"real secrets with `environment_wo` or `sandbox_file.content_wo`."

// manifestEnvironment reads env into environment variables, in name order;
// problems are reported on environment[name]. Values not known yet are
// left out (validation runs again when they are).
func manifestEnvironment(ctx context.Context, env types.Dynamic, diags *diag.Diagnostics) (vars []manifest.EnvVar) {
	if env.IsNull() || env.IsUnknown() || env.IsUnderlyingValueNull() || env.IsUnderlyingValueUnknown() {
		return nil
	}
	var members map[string]attr.Value
	switch v := env.UnderlyingValue().(type) {
	case basetypes.ObjectValue:
		members = v.Attributes()
	case basetypes.MapValue:
		members = v.Elements()
	default:
		diags.AddAttributeError(path.Root("environment"), "Invalid environment",
			fmt.Sprintf("environment must be an object of variable name to value, not a %s", env.UnderlyingValue().Type(ctx)))
		return nil
	}
	for _, name := range sortedKeys(members) {
		at := path.Root("environment").AtMapKey(name)
		if err := sandbox.ValidateEnvName(name); err != nil {
			diags.AddAttributeError(at, "Invalid environment variable name", err.Error())
			continue
		}
		raw, known, err := plainValue(ctx, members[name])
		if !known {
			continue
		}
		var ev manifest.EnvValue
		if err == nil {
			var b []byte
			if b, err = json.Marshal(raw); err == nil {
				ev, err = manifest.ParseEnvValue(b)
			}
		}
		if err == nil {
			err = sandbox.ValidateEnvValue(name, ev.Text())
		}
		if err != nil {
			addEngineAttributeError(diags, at, "Invalid environment variable "+sandbox.QuoteText(name), err)
			continue
		}
		vars = append(vars, manifest.EnvVar{Name: name, Value: ev})
	}
	return vars
}

// plainValue converts a Terraform value into what encoding/json writes as
// the same JSON (objects and maps as objects, lists, tuples and sets as
// arrays); known is false when any part is unknown.
func plainValue(ctx context.Context, v attr.Value) (out any, known bool, err error) {
	if v.IsUnknown() {
		return nil, false, nil
	}
	if v.IsNull() {
		return nil, true, nil
	}
	var members map[string]attr.Value
	var items []attr.Value
	isObject := false
	switch t := v.(type) {
	case basetypes.DynamicValue:
		return plainValue(ctx, t.UnderlyingValue())
	case basetypes.StringValue:
		return t.ValueString(), true, nil
	case basetypes.BoolValue:
		return t.ValueBool(), true, nil
	case basetypes.NumberValue:
		return json.Number(t.ValueBigFloat().Text('g', -1)), true, nil
	case basetypes.ObjectValue:
		members, isObject = t.Attributes(), true
	case basetypes.MapValue:
		members, isObject = t.Elements(), true
	case basetypes.ListValue:
		items = t.Elements()
	case basetypes.TupleValue:
		items = t.Elements()
	case basetypes.SetValue:
		items = t.Elements()
	default:
		return nil, true, fmt.Errorf("unsupported value of type %s", v.Type(ctx))
	}
	if isObject {
		obj := make(map[string]any, len(members))
		for k, m := range members {
			if obj[k], known, err = plainValue(ctx, m); !known || err != nil {
				return nil, known, err
			}
		}
		return obj, true, nil
	}
	arr := make([]any, 0, len(items))
	for _, it := range items {
		x, known, err := plainValue(ctx, it)
		if !known || err != nil {
			return nil, known, err
		}
		arr = append(arr, x)
	}
	return arr, true, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
