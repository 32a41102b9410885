package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
)

var _ resource.ResourceWithConfigValidators = (*workspaceResource)(nil)

// workspaceEnvWODescription adds what environment_wo means for a workspace.
const workspaceEnvWODescription = " Docker backend only (refused on local and kubernetes workspaces); `docker inspect` shows the " +
	"values. [Details](#secret-environment)."

// workspaceEnvWOAttributes are environment_wo and its version on
// sandbox_workspace: a new version re-creates the container.
func workspaceEnvWOAttributes() (schema.MapAttribute, schema.Int64Attribute) {
	wo, version := envWOAttributes("re-create the container (a replacement of the workspace)", int64planmodifier.RequiresReplace())
	wo.MarkdownDescription += workspaceEnvWODescription
	return wo, version
}

func (r *workspaceResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{workspaceEnvWOValidator{}}
}

// workspaceEnvWOValidator checks environment_wo at plan time: Docker only,
// and the rules of envWOValidator.
type workspaceEnvWOValidator struct{}

func (workspaceEnvWOValidator) Description(context.Context) string {
	return "environment_wo needs a docker workspace"
}

func (v workspaceEnvWOValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (workspaceEnvWOValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if k := configuredKind(ctx, req.Config); k != nil && !k.fixedAtCreation() {
		return // the kind refuses environment_wo (its validate says why)
	}
	checkEnvWO(ctx, req.Config, &resp.Diagnostics)
}
