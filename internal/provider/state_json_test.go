package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sensitiveAttributes returns "<mode>.<type>.<attribute>" of every
// top-level attribute the provider's schema marks sensitive, from
// `providers schema -json`.
func sensitiveAttributes(t *testing.T, schemaJSON string) map[string]bool {
	t.Helper()
	type block struct {
		Block struct {
			Attributes map[string]struct{ Sensitive bool } `json:"attributes"`
		} `json:"block"`
	}
	var doc struct {
		Schemas map[string]struct {
			Resources   map[string]block `json:"resource_schemas"`
			DataSources map[string]block `json:"data_source_schemas"`
		} `json:"provider_schemas"`
	}
	must(t, json.Unmarshal([]byte(schemaJSON), &doc))
	out := map[string]bool{}
	for _, p := range doc.Schemas {
		for mode, blocks := range map[string]map[string]block{"managed": p.Resources, "data": p.DataSources} {
			for typ, b := range blocks {
				for name, a := range b.Block.Attributes {
					if a.Sensitive {
						out[mode+"."+typ+"."+name] = true
					}
				}
			}
		}
	}
	if !out["managed.sandbox_file.manifest_entry"] {
		t.Fatalf("providers schema -json marks no sandbox_file.manifest_entry sensitive:\n%.2000s", schemaJSON)
	}
	return out
}

// stateJSON is the part of a terraform.tfstate file the leak test reads.
type stateJSON struct {
	Outputs   map[string]struct{ Value any } `json:"outputs"`
	Resources []struct {
		Mode, Type, Name string
		Instances        []struct {
			Attributes          map[string]any `json:"attributes"`
			SensitiveAttributes []any          `json:"sensitive_attributes"`
		} `json:"instances"`
	} `json:"resources"`
}

// readStateJSON reads the state file of dir, parsed and as text.
func readStateJSON(t *testing.T, dir string) (stateJSON, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	must(t, err)
	var st stateJSON
	must(t, json.Unmarshal(b, &st))
	return st, string(b)
}

// attr returns a string attribute of the managed resource addr.
func (s stateJSON) attr(t *testing.T, addr, key string) string {
	t.Helper()
	for _, r := range s.Resources {
		if r.Mode == "managed" && r.Type+"."+r.Name == addr && len(r.Instances) == 1 {
			v, _ := r.Instances[0].Attributes[key].(string)
			return v
		}
	}
	t.Fatalf("%s is not in the state", addr)
	return ""
}

func (s stateJSON) output(t *testing.T, name string) string {
	t.Helper()
	v, _ := s.Outputs[name].Value.(string)
	return v
}

// onlySensitive fails when value is in any attribute that neither the
// state nor the provider's schema (sensitive, as sensitiveAttributes
// returns) marks sensitive.
func (s stateJSON) onlySensitive(t *testing.T, value string, sensitive map[string]bool) {
	t.Helper()
	for _, r := range s.Resources {
		for _, inst := range r.Instances {
			marks, _ := json.Marshal(inst.SensitiveAttributes)
			for k, v := range inst.Attributes {
				b, _ := json.Marshal(v)
				marked := strings.Contains(string(marks), `"`+k+`"`) || sensitive[r.Mode+"."+r.Type+"."+k]
				if strings.Contains(string(b), value) && !marked {
					t.Errorf("%s.%s.%s holds the sensitive content and is not marked sensitive", r.Mode, r.Type, r.Name+"."+k)
				}
			}
		}
	}
}

// noLeaks fails for every secret (name → value) found in a place (name →
// text).
func noLeaks(t *testing.T, secrets, places map[string]string) {
	t.Helper()
	for name, v := range secrets {
		for place, text := range places {
			if strings.Contains(text, v) {
				t.Errorf("secret %s leaked into %s", name, place)
			}
		}
	}
}
