package manifest

import (
	"crypto/sha256"
	"encoding/hex"
)

// SensitivePlaceholder replaces, in a review rendering, a value that may be
// secret.
const SensitivePlaceholder = "(sensitive value)"

// Review returns a copy of m for people to read in a plan: every
// environment value is replaced by SensitivePlaceholder, the content of
// every "file" entry by "(sensitive value, sha256 <hex>)", and every field
// that secretFields names for an entry's type by SensitivePlaceholder (dir
// children included). Null values stay null. m is not changed.
func (m *Manifest) Review(secretFields func(entryType string) []string) *Manifest {
	out := *m
	out.Entries = reviewEntries(m.Entries, secretFields)
	out.Environment = make([]EnvVar, len(m.Environment))
	for i, ev := range m.Environment {
		v := ev.Value
		if v.Plain != nil {
			p := SensitivePlaceholder
			v.Plain = &p
		} else {
			v.Value = SensitivePlaceholder
		}
		out.Environment[i] = EnvVar{Name: ev.Name, Value: v}
	}
	return &out
}

func reviewEntries(es Entries, secretFields func(string) []string) Entries {
	if es == nil {
		return nil
	}
	out := make(Entries, len(es))
	for i, ke := range es {
		e := *ke.Entry
		if e.Fields != nil {
			f := &orderedObject{keys: e.Fields.keys, vals: make(map[string]any, len(e.Fields.vals))}
			for k, v := range e.Fields.vals {
				f.vals[k] = v
			}
			if s, ok := f.vals["content"].(string); ok && e.Type == "file" {
				sum := sha256.Sum256([]byte(s))
				f.vals["content"] = "(sensitive value, sha256 " + hex.EncodeToString(sum[:]) + ")"
			}
			if st, ok := f.vals["mount_strategy"]; ok {
				f.vals["mount_strategy"] = reviewStrategy(st, "")
			}
			for _, name := range secretFields(e.Type) {
				if v, ok := f.vals[name]; ok && v != nil {
					f.vals[name] = SensitivePlaceholder
				}
			}
			e.Fields = f
		}
		e.Children = reviewEntries(ke.Entry.Children, secretFields)
		out[i] = KeyedEntry{Key: ke.Key, Entry: &e}
	}
	return out
}

// strategyOpaque are the fields of a mount strategy whose values a user
// writes freely and that may carry credentials (driver options such as
// s3-secret-access-key, extra command-line arguments): every value in them
// is replaced, their keys kept.
var strategyOpaque = map[string]bool{"driver_options": true, "extra_args": true, "extra_options": true, "options": true}

// reviewStrategy returns v (a mount strategy or a part of one, under the
// field name) with the values of strategyOpaque fields replaced.
func reviewStrategy(v any, name string) any {
	switch x := v.(type) {
	case *orderedObject:
		out := &orderedObject{keys: x.keys, vals: make(map[string]any, len(x.vals))}
		for k, val := range x.vals {
			if strategyOpaque[name] && val != nil {
				out.vals[k] = SensitivePlaceholder
			} else {
				out.vals[k] = reviewStrategy(val, k)
			}
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if strategyOpaque[name] && val != nil {
				out[k] = SensitivePlaceholder
			} else {
				out[k] = reviewStrategy(val, k)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			if strategyOpaque[name] && val != nil {
				out[i] = SensitivePlaceholder
			} else {
				out[i] = reviewStrategy(val, name)
			}
		}
		return out
	case string:
		if strategyOpaque[name] {
			return SensitivePlaceholder
		}
	}
	return v
}
