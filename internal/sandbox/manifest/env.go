package manifest

// envValueTypes are the registered typed env value tags (core: "str").
var envValueTypes = []string{"str"}

var envLoc = []string{"environment", "value"}

// parseEnvironment reads a manifest's "environment" ({"value": {...}})
// with the Python SDK's rules (design/sdk-model.md §3.1): plain strings; typed values
// {"type": "str", "value": ...}; entries {"description", "ephemeral",
// "value": <typed>}; the legacy {"value": "<string>"}. A mapping without
// "type" whose "value" is a string next to other keys fails with "env value
// mapping must include a string `type` field"; an unknown tag with "Unknown
// env value type `<t>`. Registered types: str".
func parseEnvironment(raw any) ([]EnvVar, error) {
	if raw == nil {
		return nil, nil
	}
	obj, ok := raw.(*orderedObject)
	if !ok {
		return nil, &Error{Loc: []string{"environment"}, Msg: "Input should be a valid dictionary or instance of Environment"}
	}
	vals, ok := obj.get("value").(*orderedObject)
	if !ok {
		if obj.get("value") == nil {
			return nil, nil
		}
		return nil, &Error{Loc: envLoc, Msg: "Input should be a valid dictionary"}
	}
	out := make([]EnvVar, 0, len(vals.keys))
	for _, name := range vals.keys {
		v, err := parseEnvValue(vals.vals[name], true)
		if err != nil {
			return nil, err
		}
		out = append(out, EnvVar{Name: name, Value: v})
	}
	return out, nil
}

func parseEnvValue(raw any, entryAllowed bool) (EnvValue, error) {
	if s, ok := raw.(string); ok && entryAllowed {
		return EnvValue{Plain: &s}, nil
	}
	obj, ok := raw.(*orderedObject)
	if !ok {
		return EnvValue{}, &Error{Loc: envLoc, Msg: "Input should be a valid string or mapping, got " + pyTypeName(raw)}
	}
	if tagRaw, present := obj.vals["type"]; present {
		tag, ok := tagRaw.(string)
		if !ok {
			return EnvValue{}, valueError(envLoc, "env value mapping must include a string `type` field")
		}
		if !contains(envValueTypes, tag) {
			return EnvValue{}, valueError(envLoc, "Unknown env value type `"+tag+"`. Registered types: "+joinComma(envValueTypes))
		}
		s, ok := obj.get("value").(string)
		if !ok {
			return EnvValue{}, fieldError(envLoc, "value", "Input should be a valid string")
		}
		return EnvValue{Type: tag, Value: s}, nil
	}
	if s, isStr := obj.get("value").(string); isStr {
		if len(obj.keys) == 1 {
			return EnvValue{Type: "str", Value: s}, nil // legacy discriminator-free value
		}
		return EnvValue{}, valueError(envLoc, "env value mapping must include a string `type` field")
	}
	if !entryAllowed {
		return EnvValue{}, valueError(envLoc, "env value mapping must include a string `type` field")
	}
	vals, err := parseFields(obj, []fieldSpec{optStr("description"), defBool("ephemeral", false)}, envLoc, nil)
	if err != nil {
		return EnvValue{}, err
	}
	inner, err := parseEnvValue(obj.get("value"), false)
	if err != nil {
		return EnvValue{}, err
	}
	inner.IsEntry, inner.Description, inner.Ephemeral = true, stringOrNil(vals.get("description")), vals.flag("ephemeral")
	return inner, nil
}

// object renders the value as the Python SDK dumps it: plain strings as strings,
// typed values always with their type.
func (v EnvValue) object() any {
	if v.Plain != nil {
		return *v.Plain
	}
	typed := newObject().set("type", v.Type).set("value", v.Value)
	if !v.IsEntry {
		return typed
	}
	return newObject().set("description", nilOr(v.Description)).set("ephemeral", v.Ephemeral).set("value", typed)
}

func joinComma(list []string) string {
	out := ""
	for i, s := range list {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// ParseEnvValue reads one environment value given as JSON (a member of
// environment.value: a plain string, a typed value or an entry) with the
// Python SDK's rules and messages, as Parse does.
func ParseEnvValue(data []byte) (EnvValue, error) {
	raw, err := decodeOrderedJSON(data)
	if err != nil {
		return EnvValue{}, err
	}
	return parseEnvValue(raw, true)
}

// Text returns the string the value resolves to.
func (v EnvValue) Text() string {
	if v.Plain != nil {
		return *v.Plain
	}
	return v.Value
}
