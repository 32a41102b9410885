package sandbox

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
