package docker

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
)

// An error reported inside the pull stream (HTTP 200, then an errorDetail
// message) fails the pull with the daemon's message instead of being
// dropped.
func TestEnsureImage_pullStreamError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		switch {
		case strings.HasSuffix(r.URL.Path, "/_ping"):
			_, _ = w.Write([]byte("OK"))
		case strings.HasSuffix(r.URL.Path, "/json"): // image inspect
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"No such image: example/app:1"}`))
		case strings.HasSuffix(r.URL.Path, "/images/create"):
			_, _ = w.Write([]byte(`{"status":"Pulling from example/app","id":"1"}` + "\n" +
				`{"errorDetail":{"message":"manifest for example/app:1 not found: manifest unknown"},"error":"manifest for example/app:1 not found: manifest unknown"}` + "\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	t.Setenv("DOCKER_CERT_PATH", "")
	t.Setenv("DOCKER_TLS_VERIFY", "")
	d := NewDaemon(HostConfig{DockerConfig: spec.DockerConfig{Host: "tcp://" + strings.TrimPrefix(srv.URL, "http://")}})
	err := d.ensureImage(context.Background(), "example/app:1", PullMissing)
	if err == nil || !strings.Contains(err.Error(), "manifest unknown") {
		t.Fatalf("pull stream error: %v", err)
	}
	if err := d.ensureImage(context.Background(), "example/app:1", PullNever); err == nil || !strings.Contains(err.Error(), `pull_policy is "never"`) {
		t.Fatalf("never: %v", err)
	}
}
