package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"strings"
	"testing"
)

// Spec.Validate refuses, without a cluster, what the API server would
// refuse at creation: a bad namespace, bad or negative quantities, a
// resource a container cannot request, a request above its limit, a bad
// pull policy or root, bad label keys and values, the provider's own
// labels, bad service account and RuntimeClass names.
func TestSpecValidate(t *testing.T) {
	ok := Spec{Kubernetes: spec.Kubernetes{Namespace: "agents", Image: "busybox", Root: "/workspace", Requests: map[string]string{"cpu": "0.5", "memory": "64Mi"}, Limits: map[string]string{"cpu": "1", "memory": "1Gi"}}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec refused: %v", err)
	}
	for _, tc := range []struct {
		mutate func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Namespace = "Bad_Namespace" }, `namespace "Bad_Namespace" is not a namespace name`},
		{func(s *Spec) { s.Limits = map[string]string{"memory": "-1Gi"} }, `memory = "-1Gi" is negative`},
		{func(s *Spec) { s.Limits = map[string]string{"bad key!": "1"} }, `"bad key!" is not a container resource`},
		{func(s *Spec) { s.Requests = map[string]string{"CPU": "1"} }, `"CPU" is not a container resource`},
		{func(s *Spec) { s.Requests = map[string]string{"foo": "1"} }, `"foo" is not a container resource`},
		{func(s *Spec) {
			s.Limits = map[string]string{"memory": "1Gi", "example.com/gpu": "1", "hugepages-2Mi": "0"}
		}, ``},
		{func(s *Spec) { s.Labels = map[string]string{"bad key!": "v"} }, `labels: "bad key!" is not a label key`},
		{func(s *Spec) { s.Labels = map[string]string{"ok": "value with spaces"} }, `labels: the value "value with spaces" of ok is not a label value`},
		{func(s *Spec) { s.Labels = map[string]string{"sandbox.workspace_id": "x"} }, `the label "sandbox.workspace_id" is set by the provider`},
		{func(s *Spec) { s.Labels = map[string]string{"app.kubernetes.io/managed-by": "me"} }, `the label "app.kubernetes.io/managed-by" is set by the provider`},
		{func(s *Spec) { s.NodeSelector = map[string]string{"x/y/z": "1"} }, `node_selector: "x/y/z" is not a label key`},
		{func(s *Spec) { s.RuntimeClassName = "Not_Valid" }, `runtime_class_name "Not_Valid" is not a Kubernetes object name`},
		{func(s *Spec) { s.ServiceAccount = "Bad SA" }, `service_account "Bad SA" is not a Kubernetes object name`},
		{func(s *Spec) { s.Requests = map[string]string{"cpu": "lots"} }, `cpu = "lots" is not a Kubernetes quantity`},
		{func(s *Spec) { s.Requests = map[string]string{"memory": "2Gi"} }, `memory = "2Gi" is more than its limit "1Gi"`},
		{func(s *Spec) { s.ImagePullPolicy = "never" }, `must be Always, IfNotPresent or Never`},
		{func(s *Spec) { s.Root = "workspace" }, `must be an absolute, clean POSIX path`},
		{func(s *Spec) { s.ExposedPorts = []int{0} }, `outside 1-65535`},
	} {
		s := ok
		tc.mutate(&s)
		err := s.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("valid spec %+v refused: %v", s, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}
