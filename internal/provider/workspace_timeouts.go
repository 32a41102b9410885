package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// workspaceTimeouts are the defaults of sandbox_workspace's timeouts block:
// a creation may pull an image, fill the helper volume, wait for a pod and
// restore a snapshot.
var workspaceTimeouts = map[string]opDefault{
	opCreate: {def: 20 * time.Minute, what: "creating the workspace (image pull, pod start and `restore_from` included)"},
	opUpdate: {def: 10 * time.Minute, what: "updating the workspace"},
	opDelete: {def: 10 * time.Minute, what: "destroying the workspace"},
}

// withTimeouts adds the timeouts block to the workspace's blocks.
func withTimeouts(blocks map[string]schema.Block) map[string]schema.Block {
	blocks["timeouts"] = timeoutsBlock(context.Background(), workspaceTimeouts)
	return blocks
}

// recordCreated records a workspace whose creation failed after it came
// to exist (a timeout while provisioning or restoring it): Terraform keeps
// it tainted in state, so the next apply destroys and replaces it instead
// of leaving it untracked. Attributes not known yet are left to Terraform,
// which records them as null.
func recordCreated(ctx context.Context, w *workspace.Workspace, m workspaceModel, resp *resource.CreateResponse) {
	m.ID = types.StringValue(w.ID)
	m.Root = types.StringValue(w.Root)
	m.ContainerID = containerID(w)
	setRunState(w, &m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
