package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
)

// S3 access shared by sandbox_snapshot's s3 block and
// sandbox_workspace.restore_from: the service (endpoint_url, region) and
// write-only keys.

const s3EnvCredentialsNote = "Without them the standard `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and " +
	"`AWS_SESSION_TOKEN` environment variables of the provider's process are used, if both keys are set; " +
	"else requests are unsigned."

// s3AccessAttributes are endpoint_url, region and the write-only keys;
// replace is the plan modifier of the plain ones (nil for none).
func s3AccessAttributes(replace []planmodifier.String) map[string]schema.Attribute {
	secret := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, WriteOnly: true, MarkdownDescription: desc +
			" Write-only: never in state or plan.", Validators: []validator.String{noLineBreaks{}}}
	}
	return map[string]schema.Attribute{
		"endpoint_url": schema.StringAttribute{Optional: true, PlanModifiers: replace,
			Validators: []validator.String{s3EndpointValidator{}},
			MarkdownDescription: "Endpoint of an S3-compatible service, such as `https://s3.example.test`, addressed " +
				"path-style. Default: AWS S3."},
		"region": schema.StringAttribute{Optional: true, PlanModifiers: replace, Validators: []validator.String{noLineBreaks{}},
			MarkdownDescription: "Signing region. Default: `" + s3store.DefaultRegion + "`."},
		"access_key_id_wo":     secret("Access key id; set it together with `secret_access_key_wo`."),
		"secret_access_key_wo": secret("Secret access key; set it together with `access_key_id_wo`."),
		"session_token_wo":     secret("Session token, with both keys."),
	}
}

// s3Credentials reads the write-only keys below base from cfg (nil when
// Terraform passes no configuration, as in Read and Delete), falling back
// to the environment. ok is false while a key is unknown.
func s3Credentials(ctx context.Context, cfg *tfsdk.Config, base path.Path, diags *diag.Diagnostics) (s3store.Credentials, bool) {
	var c s3store.Credentials
	if cfg != nil {
		for name, dst := range map[string]*string{"access_key_id_wo": &c.AccessKeyID, "secret_access_key_wo": &c.SecretAccessKey,
			"session_token_wo": &c.SessionToken} {
			var v types.String
			diags.Append(cfg.GetAttribute(ctx, base.AtName(name), &v)...)
			if v.IsUnknown() {
				return c, false
			}
			*dst = v.ValueString()
		}
	}
	if diags.HasError() {
		return c, false
	}
	if err := s3store.CheckCredentials(c); err != nil {
		diags.AddAttributeError(base.AtName("access_key_id_wo"), "Incomplete S3 credentials", err.Error())
		return c, false
	}
	if !c.Set() {
		c, _ = s3store.EnvCredentials()
	}
	return c, true
}

// s3EndpointValidator checks endpoint_url at plan time.
type s3EndpointValidator struct{}

func (s3EndpointValidator) Description(context.Context) string {
	return "must be an http:// or https:// URL with a host and no credentials"
}

func (v s3EndpointValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (s3EndpointValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := s3store.CheckEndpoint(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid endpoint_url", err.Error())
	}
}

var replaceString = []planmodifier.String{stringplanmodifier.RequiresReplace()}
