package kubernetes

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"path/filepath"
	"strings"
	"testing"
)

// A missing configuration says where it was looked for: the KUBECONFIG
// value when it is set, else the default file.
func TestRestConfigMissing(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	missing := filepath.Join(home, "nope", "kc")
	t.Setenv("KUBECONFIG", missing)
	if _, err := restConfig(spec.KubernetesConfig{}); err == nil || !strings.Contains(err.Error(), `KUBECONFIG is "`+missing+`"`) {
		t.Errorf("KUBECONFIG missing: %v", err)
	}
	t.Setenv("KUBECONFIG", "")
	if _, err := restConfig(spec.KubernetesConfig{}); err == nil || !strings.Contains(err.Error(), "no kubeconfig at ~/.kube/config") {
		t.Errorf("nothing configured: %v", err)
	}
}
