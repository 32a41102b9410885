package kubernetes

import (
	"strings"
	"testing"
)

// Names, shutdown policies, volume sizes and a claim's pod metadata are
// refused at plan time as the API server or the controller would refuse
// them at apply.
func TestAgentSandboxValidation(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tc := range []struct {
		err  error
		want string // "" for valid
	}{
		{ValidateName(KindSandbox, "box-1"), ""},
		{ValidateName(KindSandboxClaim, long), "not a SandboxClaim name"},
		{ValidateName(KindSandbox, "Box"), "not a Sandbox name"},
		{ValidateName(KindSandbox, "a.b"), "not a Sandbox name"},
		{ValidateName(KindSandboxTemplate, "a.b"), ""},
		{ValidateName(KindSandboxWarmPool, long), ""},
		{ValidateName(KindSandboxWarmPool, "pool_1"), "not a SandboxWarmPool name"},
		{ValidateName("Pod", "p"), "not an agent-sandbox kind"},
		{ValidateShutdownPolicy(KindSandbox, ""), ""},
		{ValidateShutdownPolicy(KindSandbox, "Delete"), ""},
		{ValidateShutdownPolicy(KindSandbox, "Retain"), ""},
		{ValidateShutdownPolicy(KindSandbox, "DeleteForeground"), "must be Delete or Retain"},
		{ValidateShutdownPolicy(KindSandboxClaim, "DeleteForeground"), ""},
		{ValidateShutdownPolicy(KindSandboxClaim, "retain"), "Delete, DeleteForeground or Retain"},
		{func() error { _, err := ParseVolumeSize("10Gi"); return err }(), ""},
		{func() error { _, err := ParseVolumeSize("0"); return err }(), "more than zero"},
		{func() error { _, err := ParseVolumeSize("-1Gi"); return err }(), "more than zero"},
		{func() error { _, err := ParseVolumeSize(""); return err }(), "not a Kubernetes quantity"},
		{ValidateClaimPodMetadata(map[string]string{"sandbox.users.io/team": "a", "x.sandbox.users.io/b": "c"}, map[string]string{"note": "free text"}, nil), ""},
		{ValidateClaimPodMetadata(map[string]string{"team": "a"}, nil, nil), `pod label "team" needs a domain prefix among sandbox.users.io`},
		{ValidateClaimPodMetadata(map[string]string{"example.com/team": "a"}, nil, []string{"example.com"}), ""},
		{ValidateClaimPodMetadata(map[string]string{"example.com/team": "a b"}, nil, []string{"example.com"}), "not a label value"},
		{ValidateClaimPodMetadata(map[string]string{"bad key!": "a"}, nil, nil), "not a label key"},
		{ValidateClaimPodMetadata(nil, map[string]string{"kubernetes.io/x": "1"}, nil), "reserved to the cluster"},
		{ValidateClaimPodMetadata(nil, map[string]string{"agents.x-k8s.io/pod-name": "1"}, nil), "reserved to the cluster"},
		{ValidateClaimPodMetadata(nil, map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}, nil), ""},
	} {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("refused: %v", tc.err)
		case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("want %q, got %v", tc.want, tc.err)
		}
	}
}
