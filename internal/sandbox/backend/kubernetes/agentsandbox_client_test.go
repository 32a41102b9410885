package kubernetes_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
)

// An API server that does not serve the agent-sandbox kinds (their CRDs
// are not installed) answers 404 for their group; the plan's check and a
// creation say so and how to install it, never as a bare "not found".
func TestAgentSandboxNotServed(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/"):
			_, _ = w.Write([]byte(`{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"agents"}}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,` +
				`"message":"the server could not find the requested resource"}`))
		}
	}))
	defer srv.Close()
	c := kubernetes.NewCluster(spec.KubernetesConfig{Host: srv.URL, Token: "test"})
	for _, claim := range []bool{false, true} {
		err := c.CheckAgentSandbox(context.Background(), "agents", claim)
		if !errors.Is(err, kubernetes.ErrNoAgentSandbox) || !strings.Contains(err.Error(), kubernetes.AgentSandboxInstall) {
			t.Errorf("claim %v: %v, want ErrNoAgentSandbox with the install link", claim, err)
		}
	}
	s := kubernetes.Spec{WorkspaceID: "11111111-2222-3333-4444-555555555555"}
	s.Namespace, s.Image, s.Root = "agents", "busybox", "/workspace"
	_, _, err := c.ClaimSandbox(context.Background(), s, "pool", kubernetes.ClaimOptions{})
	if !errors.Is(err, kubernetes.ErrNoAgentSandbox) || !strings.Contains(err.Error(), "sandboxclaims.extensions.agents.x-k8s.io") {
		t.Errorf("claim: %v, want ErrNoAgentSandbox naming the resource", err)
	}
	if len(seen) == 0 {
		t.Fatal("no request reached the server")
	}
}
