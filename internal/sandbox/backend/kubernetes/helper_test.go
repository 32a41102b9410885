package kubernetes_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// The agent, root in the workspace container, cannot overwrite, remove,
// rename or chmod the file helper, nor remount or replace its directory,
// nor reach it through another process's /proc/PID/root: the init
// container that installed it has exited. A later provider operation, in
// a process that has not seen the pod yet, still runs the genuine helper.
func TestKubernetesBackend_helperOutOfAgentReach(t *testing.T) {
	_, b, ns := newWorkspace(t, nil)
	ctx := t.Context()
	cs, cfg := kubetest.Cluster(t)
	hostBin, err := os.ReadFile(os.Getenv(incontainer.HelperEnv))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(hostBin)
	want := hex.EncodeToString(sum[:])
	hp := path.Join(fshelper.HelperDir, want[:16], fshelper.HelperName)
	agent := func(script string) (string, error) {
		out, stderr, err := kubetest.ExecIn(ctx, cfg, kubetest.WebSocket, ns, b.PodName(), kubetest.WorkspaceContainer, nil, "sh", "-c", script)
		return out + stderr, err
	}
	if out, err := agent("id -u; test -x " + hp); err != nil || strings.TrimSpace(strings.Split(out, "\n")[0]) != "0" {
		t.Fatalf("the agent is not root or the helper is not at %s: %q %v", hp, out, err)
	}
	d := fshelper.HelperDir
	for _, attempt := range []string{
		"echo '#!/bin/sh' > " + hp,
		"cp /bin/busybox " + hp,
		"rm -f " + hp,
		"mv -f " + hp + " " + hp + ".moved",
		"chmod 0777 " + hp,
		"chown 0:0 " + hp,
		"touch " + d + "/planted",
		"rm -rf " + d + "/" + want[:16],
		"mv " + d + " /moved-helper",
		"umount " + d,
		"mount -o remount,rw " + d,
		"mount -t tmpfs tmpfs " + d,
		"for p in /proc/[0-9]*/root" + d + "/" + want[:16] + "; do echo x > $p/" + fshelper.HelperName + " && exit 0; done; exit 1",
	} {
		if out, err := agent(attempt); err == nil {
			t.Errorf("the agent's %q succeeded: %s", attempt, out)
		}
	}
	out, err := agent("sha256sum " + hp + " | cut -c1-64; stat -c '%a' " + hp + "; ls -a " + d + "/" + want[:16])
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := strings.Fields(out); len(got) != 5 || got[0] != want || got[1] != "755" || got[4] != fshelper.HelperName {
		t.Fatalf("the helper in the pod after the attempts: %q, want sha256 %s, mode 755, alone in its directory", out, want)
	}
	pod, err := cs.CoreV1().Pods(ns).Get(ctx, b.PodName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Errorf("%d containers: a process outside the workspace container could lead to the helper volume", len(pod.Spec.Containers))
	}
	for _, st := range pod.Status.InitContainerStatuses {
		if st.State.Terminated == nil || st.State.Terminated.ExitCode != 0 {
			t.Errorf("init container %s: %+v", st.Name, st.State)
		}
	}

	// A fresh process (empty helper cache) checks the pod and writes.
	c2 := kubernetes.NewCluster(spec.KubernetesConfig{ConfigPath: os.Getenv("KUBECONFIG")})
	b2 := c2.Open(ns, b.PodName(), "/workspace")
	if p, err := b2.HelperPath(ctx); err != nil || p != hp {
		t.Fatalf("helper path %q %v, want %s", p, err, hp)
	}
	if _, err := b2.WriteFile(ctx, "after.txt", strings.NewReader("still genuine\n"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	if out, err := agent("cat /workspace/after.txt"); err != nil || out != "still genuine\n" {
		t.Fatalf("file written after the attempts: %q %v", out, err)
	}
}
