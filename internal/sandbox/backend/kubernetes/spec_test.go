package kubernetes

import (
	"strings"
	"testing"
)

// Spec.Validate refuses, without a cluster, what the API server would
// refuse at creation: a bad namespace, bad or negative quantities, a
// request above its limit, a bad pull policy or root.
func TestSpecValidate(t *testing.T) {
	ok := Spec{Namespace: "agents", Image: "busybox", Root: "/workspace",
		Requests: map[string]string{"cpu": "0.5", "memory": "64Mi"}, Limits: map[string]string{"cpu": "1", "memory": "1Gi"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid spec refused: %v", err)
	}
	for _, tc := range []struct {
		mutate func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Namespace = "Bad_Namespace" }, `namespace "Bad_Namespace" is not a namespace name`},
		{func(s *Spec) { s.Limits = map[string]string{"memory": "-1Gi"} }, `memory = "-1Gi" is negative`},
		{func(s *Spec) { s.Limits = map[string]string{"bad key!": "1"} }, `"bad key!" is not a resource name`},
		{func(s *Spec) { s.Requests = map[string]string{"cpu": "lots"} }, `cpu = "lots" is not a Kubernetes quantity`},
		{func(s *Spec) { s.Requests = map[string]string{"memory": "2Gi"} }, `memory = "2Gi" is more than its limit "1Gi"`},
		{func(s *Spec) { s.ImagePullPolicy = "never" }, `must be Always, IfNotPresent or Never`},
		{func(s *Spec) { s.Root = "workspace" }, `must be an absolute, clean POSIX path`},
		{func(s *Spec) { s.ExposedPorts = []int{0} }, `outside 1-65535`},
	} {
		s := ok
		tc.mutate(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}
