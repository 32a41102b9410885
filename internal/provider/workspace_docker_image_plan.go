package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// planImage asks the daemon, when the plan creates a container, whether it
// holds the image: a missing image with pull_policy "never" fails the plan
// on docker.image, one the apply will pull is a warning. It only inspects;
// a daemon that cannot answer leaves the question to the apply.
func planImage(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	var image, policy, old types.String
	diags.Append(req.Plan.GetAttribute(ctx, dockerPath.AtName("image"), &image)...)
	diags.Append(req.Plan.GetAttribute(ctx, dockerPath.AtName("pull_policy"), &policy)...)
	if !req.State.Raw.IsNull() {
		diags.Append(req.State.GetAttribute(ctx, dockerPath.AtName("image"), &old)...)
	}
	if diags.HasError() || image.IsNull() || image.IsUnknown() || policy.IsUnknown() || image.Equal(old) ||
		policy.ValueString() == "always" {
		return
	}
	present, err := eng.DockerImagePresent(ctx, image.ValueString())
	if err != nil || present {
		return
	}
	if policy.ValueString() == "never" {
		diags.AddAttributeError(dockerPath.AtName("image"), "Image not on the Docker daemon",
			fmt.Sprintf("image %s is not present on the Docker daemon and pull_policy is \"never\": build or load it there "+
				"(docker build, docker load), or let the apply pull it (pull_policy = \"missing\", the default).", image.ValueString()))
		return
	}
	diags.AddAttributeWarning(dockerPath.AtName("image"), "Image will be pulled",
		fmt.Sprintf("image %s is not present on the Docker daemon: the apply pulls it (pull_policy = \"missing\"). "+
			"Set pull_policy = \"never\" to make a missing image an error at plan time.", image.ValueString()))
}
