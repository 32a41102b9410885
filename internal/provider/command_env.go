package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// envWOAttributes returns environment_wo and environment_wo_version;
// versionMods are the plan modifiers of the version (a change reruns the
// command, or re-creates the container).
func envWOAttributes(what string, versionMods ...planmodifier.Int64) (schema.MapAttribute, schema.Int64Attribute) {
	return schema.MapAttribute{
			Optional: true, WriteOnly: true, ElementType: types.StringType,
			MarkdownDescription: envWODescription,
		}, schema.Int64Attribute{
			Optional:            true,
			MarkdownDescription: "Any number; change it to " + what + " with the current `environment_wo` (rotation).",
			PlanModifiers:       versionMods,
		}
}

// commandEnvWOAttributes are environment_wo and its version on
// sandbox_command: a new version runs the command again.
func commandEnvWOAttributes() (schema.MapAttribute, schema.Int64Attribute) {
	return envWOAttributes("run the command again (as a replacement)", int64planmodifier.RequiresReplace())
}

// envWOValidator checks environment_wo against environment at plan time.
type envWOValidator struct{}

func (envWOValidator) Description(context.Context) string {
	return "environment_wo names must be valid and not repeat environment's"
}

func (v envWOValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (envWOValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	checkEnvWO(ctx, req.Config, &resp.Diagnostics)
}

// checkEnvWO reports, each on its attribute, an environment_wo_version
// without environment_wo, an invalid variable name, and a name given in both
// environment and environment_wo. No value is ever put in a message.
func checkEnvWO(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	var wo, plain types.Map
	var version types.Int64
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment_wo"), &wo)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment"), &plain)...)
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment_wo_version"), &version)...)
	if diags.HasError() {
		return
	}
	if !version.IsNull() && wo.IsNull() {
		diags.AddAttributeError(path.Root("environment_wo_version"), "environment_wo_version without environment_wo",
			"environment_wo_version only triggers using environment_wo again; set environment_wo as well or remove it.")
	}
	if wo.IsNull() || wo.IsUnknown() {
		return
	}
	for k := range wo.Elements() {
		at := path.Root("environment_wo").AtMapKey(k)
		if msg := envNameProblem(k); msg != "" {
			diags.AddAttributeError(at, "Invalid environment variable name", fmt.Sprintf("environment_wo name %q %s", k, msg))
		}
		if plain.IsNull() || plain.IsUnknown() {
			continue
		}
		if _, ok := plain.Elements()[k]; ok {
			diags.AddAttributeError(at, "Environment variable given twice",
				fmt.Sprintf("%s is in both environment and environment_wo; keep it in one of them (environment_wo for a secret).", k))
		}
	}
}

// envNameProblem says what makes k unusable as an environment variable
// name, or "".
func envNameProblem(k string) string {
	switch {
	case k == "":
		return "is empty"
	case strings.ContainsAny(k, "=\x00"):
		return "contains '=' or a NUL byte"
	}
	return ""
}

// configEnvWO reads environment_wo from the configuration: the values exist
// only there. Unknown or null gives nil.
func configEnvWO(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) map[string]string {
	var wo types.Map
	diags.Append(cfg.GetAttribute(ctx, path.Root("environment_wo"), &wo)...)
	if wo.IsNull() || wo.IsUnknown() {
		return nil
	}
	out := make(map[string]string, len(wo.Elements()))
	for k, v := range wo.Elements() {
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out[k] = s.ValueString()
		}
	}
	return out
}
