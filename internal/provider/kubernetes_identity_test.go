package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAccKubernetesStateIdentity_otherCluster: a pod workspace missing from
// the configured cluster is re-created when it was created there, and
// refused with both cluster identities when state says it lives on another
// cluster; the identity recorded is the kube-system namespace's UID.
func TestAccKubernetesStateIdentity_otherCluster(t *testing.T) {
	env := newKubeEnv(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+env.config("", "", "")), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })
	statePath := filepath.Join(dir, "terraform.tfstate")
	id := readState(t, statePath).attr(t, "sandbox_workspace.ws", "id")
	pod := "sandbox-" + strings.Split(id, ":")[1]
	ks, err := env.cs.CoreV1().Namespaces().Get(t.Context(), "kube-system", metav1.GetOptions{})
	must(t, err)
	if priv := statePrivate(t, statePath, "kubernetes_cluster"); !strings.Contains(priv, string(ks.UID)) {
		t.Fatalf("private state records cluster %s, want kube-system's UID %s", priv, ks.UID)
	}
	must(t, env.cs.CoreV1().Pods(env.ns).Delete(t.Context(), pod, metav1.DeleteOptions{}))
	saved, err := os.ReadFile(statePath)
	must(t, err)
	rewritePrivate(t, statePath, "kubernetes_cluster", `{"id":"00000000-other-cluster"}`)
	if code := c.exitCode("plan-other.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 1 ||
		!strings.Contains(c.last, "Workspace is on another Kubernetes cluster") || !strings.Contains(c.last, "00000000-other-cluster") ||
		!strings.Contains(c.last, string(ks.UID)) {
		t.Fatalf("plan with the workspace on another cluster exited %d:\n%s", code, c.last)
	}
	must(t, os.WriteFile(statePath, saved, 0o600))
	if code := c.exitCode("plan-gone.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 2 ||
		!strings.Contains(c.last, "1 to add") {
		t.Fatalf("plan with the pod deleted exited %d, want a re-creation:\n%s", code, c.last)
	}
}
