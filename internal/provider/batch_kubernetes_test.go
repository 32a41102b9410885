package provider

import (
	"testing"
)

// 200 files of one pod workspace applied at -parallelism=50, one owned by
// a user the pod has no account for: that one alone fails, with its own
// error naming its path and owner; the 199 others are written with their
// content, mode 0640 and owner (read back with one exec in the pod), the
// failed one leaves nothing behind, a refresh finds no drift and the next
// plan creates the failed one alone. With its owner fixed the apply
// completes all 200, the next plan is empty, and destroying the files
// removes all of them from the pod.
//
// A pod's accounts cannot be read without running something in it, so the
// plan only warns about the unknown name and the failure comes from the
// entry operation in the pod.
func TestAccKubernetesBatch_pod200Files(t *testing.T) {
	env := newKubeEnv(t)
	runBatch(t, batchCase{
		config:    func(body string) string { return env.config("", `users = [{ name = "agent" }]`, body) },
		spec:      batchSpec{owner: "agent", badOwner: "no-such-user-137"},
		wantOwner: "agent",
		refused:   "no-such-user-137",
		list: func(t *testing.T, ws map[string]any) map[string]batchEntry {
			pod := batchPod(t, ws)
			return listIn(t, batchAttr(t, ws, "root"), func(script string) (string, error) { return env.shIn(pod, script) })
		},
		gone: func(t *testing.T, _ map[string]any) { must(t, env.checkGone(nil)) },
	})
}

// batchPod is the pod of the workspace, kubernetes.pod_name in state.
func batchPod(t *testing.T, ws map[string]any) string {
	t.Helper()
	k := ws["kubernetes"]
	if l, ok := k.([]any); ok && len(l) == 1 {
		k = l[0]
	}
	m, _ := k.(map[string]any)
	pod, _ := m["pod_name"].(string)
	if pod == "" {
		t.Fatalf("no kubernetes.pod_name in the workspace's state: %v", ws["kubernetes"])
	}
	return pod
}
