package manifest

import (
	"strings"
)

// Error is one rejected manifest value, the Go form of a pydantic
// validation error of the Python SDK's Manifest: Loc is pydantic's location
// (such as ["entries", "mount_strategy"]) and Msg its message, with
// pydantic's "Value error, " prefix when the Python SDK raised a ValueError.
type Error struct {
	Loc []string
	Msg string
}

// Error returns "<loc joined by dots>: <msg>", or Msg when Loc is empty.
func (e *Error) Error() string {
	if len(e.Loc) == 0 {
		return e.Msg
	}
	return strings.Join(e.Loc, ".") + ": " + e.Msg
}

func valueError(loc []string, msg string) error {
	return &Error{Loc: append([]string(nil), loc...), Msg: "Value error, " + msg}
}

func fieldError(loc []string, field, msg string) error {
	l := append(append([]string(nil), loc...), field)
	return &Error{Loc: l, Msg: msg}
}

// fieldKind is the JSON shape of one Python SDK model field.
type fieldKind int

const (
	fStr        fieldKind = iota // str (paths too)
	fBool                        // bool, pydantic lax
	fInt                         // int, pydantic lax
	fStrList                     // list[str]
	fStrMap                      // dict[str, str]
	fStrNullMap                  // dict[str, str | None]
	fObject                      // a nested model with fixed fields (sub)
	fStrategy                    // a mount strategy, tagged by type
)

// fieldSpec is one field of a Python SDK model, in the model's field order.
type fieldSpec struct {
	name     string
	kind     fieldKind
	required bool
	nullable bool
	def      any      // default (null when nil and nullable)
	choices  []string // allowed values of a Literal str field
	sub      []fieldSpec
}

func reqStr(n string) fieldSpec          { return fieldSpec{name: n, kind: fStr, required: true} }
func optStr(n string) fieldSpec          { return fieldSpec{name: n, kind: fStr, nullable: true} }
func defStr(n, d string) fieldSpec       { return fieldSpec{name: n, kind: fStr, def: d} }
func defBool(n string, d bool) fieldSpec { return fieldSpec{name: n, kind: fBool, def: d} }
func optInt(n string) fieldSpec          { return fieldSpec{name: n, kind: fInt, nullable: true} }
func defInt(n string, d int64) fieldSpec { return fieldSpec{name: n, kind: fInt, def: d} }
func strList(n string) fieldSpec         { return fieldSpec{name: n, kind: fStrList, def: []any{}} }
func optStrList(n string) fieldSpec      { return fieldSpec{name: n, kind: fStrList, nullable: true} }
func strMap(n string) fieldSpec          { return fieldSpec{name: n, kind: fStrMap, def: newObject()} }
func strNullMap(n string) fieldSpec      { return fieldSpec{name: n, kind: fStrNullMap, def: newObject()} }
func object(n string, s ...fieldSpec) fieldSpec {
	return fieldSpec{name: n, kind: fObject, sub: s}
}
func literal(n, d string, choices ...string) fieldSpec {
	return fieldSpec{name: n, kind: fStr, def: d, choices: choices}
}

// parseFields reads the fields of one model from obj (nil means an empty
// mapping) and returns them in spec order with defaults filled in. Unknown
// keys are ignored, as pydantic's default extra="ignore" does.
func parseFields(obj *orderedObject, specs []fieldSpec, loc []string, ctx *fieldCtx) (*orderedObject, error) {
	out := newObject()
	for _, s := range specs {
		raw, present := any(nil), false
		if obj != nil {
			raw, present = obj.vals[s.name]
		}
		v, err := parseField(s, raw, present, loc, ctx)
		if err != nil {
			return nil, err
		}
		out.set(s.name, v)
	}
	return out, nil
}

// fieldCtx carries what a strategy check needs to know about its mount.
type fieldCtx struct {
	mountType string
}

func parseField(s fieldSpec, raw any, present bool, loc []string, ctx *fieldCtx) (any, error) {
	if !present {
		switch {
		case s.required:
			return nil, fieldError(loc, s.name, "Field required")
		case s.kind == fObject:
			return parseFields(nil, s.sub, append(loc, s.name), ctx)
		case s.kind == fStrMap || s.kind == fStrNullMap:
			return newObject(), nil
		case s.kind == fStrList && !s.nullable:
			return []any{}, nil
		}
		return s.def, nil
	}
	if raw == nil && s.nullable {
		return nil, nil
	}
	switch s.kind {
	case fStr:
		str, ok := raw.(string)
		if !ok {
			return nil, fieldError(loc, s.name, "Input should be a valid string")
		}
		if len(s.choices) > 0 && !contains(s.choices, str) {
			return nil, fieldError(loc, s.name, "Input should be "+literalList(s.choices))
		}
		return str, nil
	case fBool:
		b, msg := laxBool(raw)
		if msg != "" {
			return nil, fieldError(loc, s.name, msg)
		}
		return b, nil
	case fInt:
		n, msg := laxInt(raw)
		if msg != "" {
			return nil, fieldError(loc, s.name, msg)
		}
		return n, nil
	case fStrList:
		arr, ok := raw.([]any)
		if !ok {
			return nil, fieldError(loc, s.name, "Input should be a valid list")
		}
		out := make([]any, 0, len(arr))
		for _, e := range arr {
			str, ok := e.(string)
			if !ok {
				return nil, fieldError(loc, s.name, "Input should be a valid string")
			}
			out = append(out, str)
		}
		return out, nil
	case fStrMap, fStrNullMap:
		m, ok := raw.(*orderedObject)
		if !ok {
			return nil, fieldError(loc, s.name, "Input should be a valid dictionary")
		}
		out := newObject()
		for _, k := range m.keys {
			v := m.vals[k]
			if _, isStr := v.(string); !isStr && (v != nil || s.kind == fStrMap) {
				return nil, fieldError(loc, s.name, "Input should be a valid string")
			}
			out.set(k, v)
		}
		return out, nil
	case fObject:
		m, ok := raw.(*orderedObject)
		if !ok {
			return nil, fieldError(loc, s.name, "Input should be a valid dictionary")
		}
		return parseFields(m, s.sub, append(loc, s.name), ctx)
	case fStrategy:
		return parseStrategy(raw, append(loc, s.name), ctx)
	}
	return nil, fieldError(loc, s.name, "unsupported field kind")
}

// literalList renders pydantic's literal_error list: 'a' or 'b'; 'a', 'b'
// or 'c'.
func literalList(choices []string) string {
	q := make([]string, len(choices))
	for i, c := range choices {
		q[i] = "'" + c + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
