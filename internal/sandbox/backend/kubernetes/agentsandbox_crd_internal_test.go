package kubernetes

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// The CRDs the objects are checked against are those of the agent-sandbox
// module the test cluster's controller is built from
// (tools/agent-sandbox/go.mod), so a new version of it is checked too. The
// test downloads that module itself (`go mod download`, a no-op when it is
// in the module cache already): it depends on no make target having run.

var crdDir = sync.OnceValues(func() (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", "sigs.k8s.io/agent-sandbox")
	cmd.Dir = filepath.Join("..", "..", "..", "..", "tools", "agent-sandbox")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download sigs.k8s.io/agent-sandbox in %s: %w: %s", cmd.Dir, err,
			strings.TrimSpace(stderr.String()))
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("go mod download -json sigs.k8s.io/agent-sandbox: %w", err)
	}
	if mod.Error != "" || mod.Dir == "" {
		return "", fmt.Errorf("go mod download sigs.k8s.io/agent-sandbox: %q (dir %q)", mod.Error, mod.Dir)
	}
	dir := filepath.Join(mod.Dir, "k8s", "crds")
	if _, err := os.Stat(dir); err != nil {
		return "", err
	}
	return dir, nil
})

// crd is the CRD of kind: its group, plural and the openAPIV3Schema of its
// only version, v1beta1.
type crd struct {
	group, kind, plural string
	schema              map[string]any
}

func loadCRD(t *testing.T, file string) crd {
	t.Helper()
	need.Tools(t, "checking agent-sandbox objects against their CRDs", "go")
	dir, err := crdDir()
	if err != nil {
		need.Unavailable(t, "checking agent-sandbox objects against their CRDs", err.Error())
	}
	f, err := os.Open(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var doc map[string]any
	if err := yaml.NewYAMLOrJSONDecoder(f, 4096).Decode(&doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	spec := asMap(doc["spec"])
	names := asMap(spec["names"])
	versions, _ := spec["versions"].([]any)
	if len(versions) != 1 || asMap(versions[0])["name"] != AgentsAPIVersion {
		t.Fatalf("%s: versions %v, want only %s", file, versions, AgentsAPIVersion)
	}
	schema := asMap(asMap(asMap(versions[0])["schema"])["openAPIV3Schema"])
	if schema == nil {
		t.Fatalf("%s has no openAPIV3Schema", file)
	}
	group, _ := spec["group"].(string)
	kind, _ := names["kind"].(string)
	plural, _ := names["plural"].(string)
	return crd{group: group, kind: kind, plural: plural, schema: schema}
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

// schemaErrors lists where v departs from the structural schema s: a
// field the schema does not have (a misspelt name), a value of the wrong
// type, a value outside an enum, a bad date-time, a missing required
// field, a null where none is allowed.
func schemaErrors(path string, v any, s map[string]any) []string {
	if v == nil {
		if s["nullable"] == true {
			return nil
		}
		return []string{path + ": null"}
	}
	if s["x-kubernetes-preserve-unknown-fields"] == true && s["type"] == nil {
		return nil
	}
	if s["x-kubernetes-int-or-string"] == true {
		switch v.(type) {
		case string, int64:
			return nil
		}
		return []string{fmt.Sprintf("%s: %T is neither an integer nor a string", path, v)}
	}
	var errs []string
	switch s["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, want an object", path, v)}
		}
		props := asMap(s["properties"])
		extra := asMap(s["additionalProperties"])
		if props == nil && extra == nil && strings.Count(path, ".") == 1 && strings.HasSuffix(path, ".metadata") {
			return nil // an object's own metadata: the API server's ObjectMeta
		}
		for k, fv := range m {
			switch {
			case props[k] != nil:
				errs = append(errs, schemaErrors(path+"."+k, fv, asMap(props[k]))...)
			case extra != nil:
				errs = append(errs, schemaErrors(path+"."+k, fv, extra)...)
			case s["x-kubernetes-preserve-unknown-fields"] != true:
				errs = append(errs, path+"."+k+": no such field")
			}
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s.%s: required", path, r))
			}
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, want a list", path, v)}
		}
		for i, e := range l {
			errs = append(errs, schemaErrors(fmt.Sprintf("%s[%d]", path, i), e, asMap(s["items"]))...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, want a string", path, v)}
		}
		if enum, _ := s["enum"].([]any); enum != nil && !slices.Contains(enum, any(str)) {
			errs = append(errs, fmt.Sprintf("%s: %q is not one of %v", path, str, enum))
		}
		if s["format"] == "date-time" {
			if _, err := time.Parse(time.RFC3339, str); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %q is not a date-time", path, str))
			}
		}
	case "integer":
		n, ok := v.(int64)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, want an int64", path, v)}
		}
		if lo, ok := s["minimum"].(float64); ok && float64(n) < lo {
			errs = append(errs, fmt.Sprintf("%s: %d is below %v", path, n, lo))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return []string{fmt.Sprintf("%s: %T, want a boolean", path, v)}
		}
	default:
		return []string{fmt.Sprintf("%s: schema type %v is not checked", path, s["type"])}
	}
	return errs
}

// checkAgainstCRD fails t when u is not an object of the CRD in file.
func checkAgainstCRD(t *testing.T, file string, obj map[string]any) {
	t.Helper()
	c := loadCRD(t, file)
	if obj["apiVersion"] != c.group+"/"+AgentsAPIVersion || obj["kind"] != c.kind {
		t.Errorf("%s: apiVersion %v kind %v, the CRD serves %s/%s %s", file, obj["apiVersion"], obj["kind"], c.group, AgentsAPIVersion, c.kind)
	}
	for _, e := range schemaErrors(c.kind, obj, c.schema) {
		t.Errorf("%s: %s", file, e)
	}
}
