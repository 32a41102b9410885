package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

const testDigest = "0123456789abcdef"

// representativeSpecs set every field of a Spec that pod() reads: labels,
// environment, ports, resources, accounts, node selector, service
// account, RuntimeClass, and either the egress sidecar or a privileged
// container (the two exclude each other).
func representativeSpecs() map[string]Spec {
	base := spec.Kubernetes{
		Namespace: "agents", Image: "busybox:1.37", ImagePullPolicy: "IfNotPresent", Root: "/workspace",
		Labels:         map[string]string{"team": "a", "example.com/tier": "gold"},
		ServiceAccount: "agent", NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
		RuntimeClassName: "gvisor",
		Requests:         map[string]string{"cpu": "250m", "memory": "64Mi"},
		Limits:           map[string]string{"cpu": "1", "memory": "1Gi"},
		Environment:      map[string]string{"B": "2", "A": "1"},
		ExposedPorts:     []int{8080, 22},
		Users:            []sandbox.User{{Name: "agent"}},
		Groups:           []sandbox.Group{{Name: "dev", Users: []sandbox.User{{Name: "agent"}}}},
	}
	egress, privileged := base, base
	egress.Egress = true
	privileged.Privileged = true
	privileged.Users, privileged.Groups, privileged.RuntimeClassName = nil, nil, ""
	return map[string]Spec{
		"egress":     {Kubernetes: egress, WorkspaceID: "11111111-2222-3333-4444-555555555555"},
		"privileged": {Kubernetes: privileged, WorkspaceID: "66666666-7777-8888-9999-000000000000"},
	}
}

// The pod of a workspace is what it was before its spec and metadata
// became reusable as a pod template: the JSON of pod() for representative
// specs is pinned in testdata.
func TestPodUnchanged(t *testing.T) {
	for name, s := range representativeSpecs() {
		p, err := s.pod(testDigest)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("testdata", "pod-"+name+".json")
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
			t.Errorf("%s: pod() differs from %s:\n%s", name, file, got)
		}
	}
}

// pod() is its pod template, named and placed in its namespace: nothing
// else is added or lost on the way.
func TestPodIsItsTemplate(t *testing.T) {
	for name, s := range representativeSpecs() {
		p, err := s.pod(testDigest)
		if err != nil {
			t.Fatal(err)
		}
		tpl, err := s.podTemplate(testDigest)
		if err != nil {
			t.Fatal(err)
		}
		if tpl.Name != "" || tpl.Namespace != "" {
			t.Errorf("%s: the template is named %s/%s", name, tpl.Namespace, tpl.Name)
		}
		tpl.Name, tpl.Namespace = PodName(s.WorkspaceID), s.Namespace
		if !apiequality.Semantic.DeepEqual(p.ObjectMeta, tpl.ObjectMeta) || !apiequality.Semantic.DeepEqual(p.Spec, tpl.Spec) {
			t.Errorf("%s: pod() %+v differs from its template %+v", name, p, tpl)
		}
	}
	if _, err := (Spec{Kubernetes: spec.Kubernetes{Requests: map[string]string{"cpu": "lots"}}}).podTemplate(testDigest); err == nil {
		t.Error("a bad quantity makes a template")
	}
}
