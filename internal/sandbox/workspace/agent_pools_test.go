package workspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
)

// An import id is "<namespace>/<name>"; anything else is refused saying
// so.
func TestParseAgentObjectID(t *testing.T) {
	ns, name, err := ParseKubernetesObjectID("agents/python.3", "thing")
	if err != nil || ns != "agents" || name != "python.3" {
		t.Errorf("agents/python.3: %q %q %v", ns, name, err)
	}
	for _, bad := range []string{"", "python", "/python", "agents/", "Agents/python", "a/b/c"} {
		if _, _, err := ParseKubernetesObjectID(bad, "thing"); err == nil || !strings.Contains(err.Error(), "<namespace>/<name>") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// A template's problems name the attribute they are about; empty values
// (unknown at plan time) pass.
func TestCheckAgentTemplateFields(t *testing.T) {
	good := spec.KubernetesTemplate{Name: "python", Pod: spec.Kubernetes{Namespace: "agents", Image: "busybox"}}
	if err := CheckKubernetesTemplate(good); err != nil {
		t.Fatal(err)
	}
	if err := CheckKubernetesTemplate(spec.KubernetesTemplate{RootVolume: &spec.KubernetesRootVolume{}}); err != nil {
		t.Errorf("all unknown: %v", err)
	}
	cases := map[string]func(*spec.KubernetesTemplate){
		"name":                  func(t *spec.KubernetesTemplate) { t.Name = "Python" },
		"namespace":             func(t *spec.KubernetesTemplate) { t.Pod.Namespace = "a.b" },
		"root":                  func(t *spec.KubernetesTemplate) { t.Pod.Root = "work" },
		"resources":             func(t *spec.KubernetesTemplate) { t.Pod.Limits = map[string]string{"cpu": "x"} },
		"volume_claim_template": func(t *spec.KubernetesTemplate) { t.RootVolume = &spec.KubernetesRootVolume{Size: "0Gi"} },
	}
	for field, mutate := range cases {
		tpl := good
		mutate(&tpl)
		var fe *spec.KubernetesFieldError
		if err := CheckKubernetesTemplate(tpl); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: %v", field, err)
		}
	}
}
