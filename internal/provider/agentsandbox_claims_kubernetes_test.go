package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// claimsConfig is a template, a warm pool of 3 and n workspaces claimed
// from it, each with a file naming it.
func (e *agentEnv) claimsConfig(n int) string {
	return fmt.Sprintf(`
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}
provider "sandbox" {
  kubernetes {
    config_path = %[1]q
  }
}
resource "sandbox_kubernetes_template" "t" {
  name              = "eval"
  namespace         = %[2]q
  image             = %[3]q
  image_pull_policy = "Never"
  root              = "/srv/task"
}
resource "sandbox_kubernetes_warm_pool" "p" {
  name      = "eval"
  namespace = %[2]q
  template  = sandbox_kubernetes_template.t.name
  replicas  = 3
}
resource "sandbox_workspace" "task" {
  count = %[4]d
  agent_sandbox {
    namespace = %[2]q
    warm_pool = sandbox_kubernetes_warm_pool.p.name
  }
}
resource "sandbox_file" "f" {
  count        = %[4]d
  workspace_id = sandbox_workspace.task[count.index].id
  path         = "task.md"
  content      = "task ${count.index}\n"
}
`, os.Getenv("KUBECONFIG"), e.ns, kubetest.WorkspaceImage, n)
}

// claimed reads the n claimed workspaces (sandbox_workspace.task) from the
// state in c's directory: their ids and Sandbox names, by index.
func claimed(t *testing.T, c *cliRun, n int) (ids, sandboxes []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
	must(t, err)
	var st struct {
		Resources []struct {
			Type, Name string
			Instances  []struct {
				IndexKey   int            `json:"index_key"`
				Attributes map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	must(t, json.Unmarshal(b, &st))
	ids, sandboxes = make([]string, n), make([]string, n)
	for _, r := range st.Resources {
		if r.Type != "sandbox_workspace" || r.Name != "task" {
			continue
		}
		for _, in := range r.Instances {
			if in.IndexKey < n {
				ids[in.IndexKey] = fmt.Sprint(in.Attributes["id"])
				sandboxes[in.IndexKey] = agentSandboxName(t, in.Attributes)
			}
		}
	}
	for i := range ids {
		if ids[i] == "" {
			t.Fatalf("no sandbox_workspace.task[%d] in state", i)
		}
	}
	return ids, sandboxes
}

// agentSandboxName is agent_sandbox.sandbox_name of a workspace's state.
func agentSandboxName(t *testing.T, ws map[string]any) string {
	t.Helper()
	k := ws["agent_sandbox"]
	if l, ok := k.([]any); ok && len(l) == 1 {
		k = l[0]
	}
	m, _ := k.(map[string]any)
	name, _ := m["sandbox_name"].(string)
	if name == "" {
		t.Fatalf("no agent_sandbox.sandbox_name in the workspace's state: %v", ws["agent_sandbox"])
	}
	return name
}

// waitPoolReady waits until the pool's Sandboxes not claimed are n and
// ready.
func (e *agentEnv) waitPoolReady(t *testing.T, n int64) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		u, err := e.dc.Resource(kubernetes.SandboxWarmPoolResource).Namespace(e.ns).Get(context.Background(), "eval", metav1.GetOptions{})
		must(t, err)
		st, err := kubernetes.ReadSandboxWarmPool(u)
		must(t, err)
		if st.ReadyReplicas == n && st.Replicas == n {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the pool has %d members, %d ready, 2 minutes on; want %d", st.Replicas, st.ReadyReplicas, n)
		}
	}
}

// A pool of 3 and 3 workspaces claimed from it, through the CLI: each claim
// is bound to a Sandbox of the pool whose pod existed before the claim, with
// the helper the pool installed and the template's root; the files read
// back by exec; the next plan is empty, and so is a fresh checkout's with
// the same state; a claim deleted out of band plans its workspace's
// re-creation, which the apply makes; destroying the workspaces deletes
// the claims and their Sandboxes and the pool refills; the last destroy
// leaves nothing.
func TestAccKubernetesAgentSandbox_warmPoolClaims(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(e.claimsConfig(3)), 0o644))
	c := newCLIRun(t, dir)
	applied := true
	t.Cleanup(func() {
		if applied {
			c.mustSucceed = false
			c.run("cleanup-destroy.log", "destroy", "-auto-approve", "-input=false")
		}
	})
	c.run("apply.log", "apply", "-auto-approve", "-input=false")
	ctx := context.Background()
	ids, sandboxes := claimed(t, c, 3)
	seen := map[string]bool{}
	for i, name := range sandboxes {
		if seen[name] || !strings.HasPrefix(name, "eval-") {
			t.Fatalf("workspace %d has Sandbox %q: want a distinct member of the pool eval", i, name)
		}
		seen[name] = true
		claimName := "sandbox-" + strings.Split(ids[i], ":")[2]
		claim, err := e.dc.Resource(kubernetes.SandboxClaimResource).Namespace(e.ns).Get(ctx, claimName, metav1.GetOptions{})
		must(t, err)
		pod, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, name, metav1.GetOptions{})
		must(t, err)
		if !pod.CreationTimestamp.Before(&metav1.Time{Time: claim.GetCreationTimestamp().Time}) {
			t.Errorf("pod %s was created at %s, not before its claim %s (%s): not pre-warmed", name, pod.CreationTimestamp,
				claimName, claim.GetCreationTimestamp())
		}
		if len(pod.Spec.EphemeralContainers) != 1 || !pod.CreationTimestamp.Before(&metav1.Time{Time: claim.GetCreationTimestamp().Time}) {
			t.Errorf("pod %s has %d ephemeral containers, want the one installer", name, len(pod.Spec.EphemeralContainers))
		}
		out, err := e.shIn(name, "cat /srv/task/task.md")
		must(t, err)
		if out != fmt.Sprintf("task %d", i) {
			t.Errorf("pod %s: task.md is %q", name, out)
		}
	}
	planNoChanges(t, c, "after apply")

	fresh := t.TempDir()
	must(t, os.WriteFile(filepath.Join(fresh, "main.tf"), []byte(e.claimsConfig(3)), 0o644))
	copyFile(t, filepath.Join(dir, "terraform.tfstate"), filepath.Join(fresh, "terraform.tfstate"))
	other := &cliRun{t: t, dir: fresh, bin: c.bin, env: c.env, mustSucceed: true, plugin: c.plugin}
	planNoChanges(t, other, "fresh checkout")

	gone := "sandbox-" + strings.Split(ids[1], ":")[2]
	must(t, e.dc.Resource(kubernetes.SandboxClaimResource).Namespace(e.ns).Delete(ctx, gone, metav1.DeleteOptions{}))
	for end := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
		if _, err := e.dc.Resource(kubernetes.SandboxClaimResource).Namespace(e.ns).Get(ctx, gone, metav1.GetOptions{}); err != nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("claim %s still there a minute after its deletion", gone)
		}
	}
	if code := c.exitCode("plan-gone.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 2 ||
		!strings.Contains(c.last, "sandbox_workspace.task[1] will be created") {
		t.Fatalf("plan after claim %s was deleted: exit %d, want 2 and task[1] created:\n%s", gone, code, c.last)
	}
	c.run("apply-again.log", "apply", "-auto-approve", "-input=false")
	planNoChanges(t, c, "after re-creation")

	_, sandboxes = claimed(t, c, 3)
	c.run("destroy-tasks.log", "destroy", "-auto-approve", "-input=false", "-target=sandbox_workspace.task")
	for _, name := range sandboxes {
		if _, err := e.dc.Resource(kubernetes.SandboxResource).Namespace(e.ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
			t.Errorf("Sandbox %s of a destroyed workspace is still there", name)
		}
	}
	claims, err := e.dc.Resource(kubernetes.SandboxClaimResource).Namespace(e.ns).List(ctx, metav1.ListOptions{})
	must(t, err)
	if len(claims.Items) != 0 {
		t.Errorf("%d claims left after the workspaces were destroyed", len(claims.Items))
	}
	e.waitPoolReady(t, 3)

	c.run("destroy.log", "destroy", "-auto-approve", "-input=false")
	applied = false
	for end := time.Now().Add(time.Minute); e.checkNoSandboxes(nil) != nil; time.Sleep(250 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal(e.checkNoSandboxes(nil))
		}
	}
}
