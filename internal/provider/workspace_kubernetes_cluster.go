package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// privateClusterKey is the private-state key holding the identity of the
// cluster a kubernetes workspace was created on (its kube-system
// namespace's UID).
const privateClusterKey = "kubernetes_cluster"

// rememberCluster records the configured cluster's identity in private
// state.
func rememberCluster(ctx context.Context, eng *workspace.Engine, p privateSetter, diags *diag.Diagnostics) {
	if id, err := eng.KubernetesClusterID(ctx); err == nil {
		rememberIdentity(ctx, p, privateClusterKey, id, diags)
	}
}

// missing reports (with an error diagnostic) that a pod workspace not found
// on the configured cluster was created on another one: the provider is
// pointed at the wrong cluster (or context), and re-creating the workspace
// would orphan the real pod.
func (kubernetesKind) missing(ctx context.Context, eng *workspace.Engine, p privateGetter, id string, diags *diag.Diagnostics) bool {
	want := recordedIdentity(ctx, p, privateClusterKey)
	if want == "" {
		return false
	}
	have, err := eng.KubernetesClusterID(ctx)
	if err != nil || have == "" || have == want {
		return false
	}
	diags.AddAttributeError(path.Root("id"), "Workspace is on another Kubernetes cluster",
		fmt.Sprintf("workspace %s was created on the cluster whose kube-system namespace has UID %s, but the provider is "+
			"configured for the cluster with UID %s, which has no such pod. Point the provider's kubernetes block "+
			"(config_path, config_context or host) at the cluster that holds it, or, if that cluster and its pods are gone "+
			"for good, remove the workspace from state (terraform state rm).", id, want, have))
	return true
}

// imported: the pod is the provider's own, so destroying removes it; the
// cluster it is on is recorded as at creation.
func (kubernetesKind) imported(ctx context.Context, eng *workspace.Engine, _ *workspace.Workspace, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("keep_on_destroy"), false)...)
	rememberCluster(ctx, eng, resp.Private, &resp.Diagnostics)
}
