package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/ephemeralvalidator"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ ephemeral.EphemeralResourceWithConfigure        = (*execEphemeral)(nil)
	_ ephemeral.EphemeralResourceWithConfigValidators = (*execEphemeral)(nil)
)

// NewExecEphemeralResource returns the ephemeral sandbox_exec: a command
// run in a workspace whose output is never stored.
func NewExecEphemeralResource() ephemeral.EphemeralResource { return &execEphemeral{} }

type execEphemeral struct {
	eng *workspace.Engine
}

func (e *execEphemeral) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_exec"
}

func (e *execEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	attrs := ephemeralAttributes(execAttributes())
	env, _ := attrs["environment"].(schema.MapAttribute) // execAttributes makes it a map
	env.Sensitive = true
	env.MarkdownDescription = "Variables added to the command's environment, over the workspace's `environment`. " +
		"Nothing here is stored, and every value is replaced by `REDACTED` in error messages; the output is returned " +
		"as printed (it is not stored either)."
	attrs["environment"] = env
	resp.Schema = schema.Schema{
		MarkdownDescription: "Runs a command in a workspace each time Terraform opens the ephemeral resource (Terraform 1.10 " +
			"or later; every plan and apply that needs it) and returns its exit code and output without storing them: " +
			"ephemeral values never land in state or plan files. Use it to fetch a token from inside a sandbox (and hand " +
			"it to a write-only attribute such as `sandbox_file.content_wo`) or to run a check whose output must not be " +
			"kept; use `data \"sandbox_exec\"` when the output is not secret (it runs at every plan too, and stores its " +
			"output in state), and `sandbox_command` for a command that should run once.",
		Attributes: attrs,
	}
}

// ephemeralAttributes converts data source attributes to the ephemeral
// schema's types: same kinds, flags, descriptions and validators.
func ephemeralAttributes(in map[string]dsschema.Attribute) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(in))
	for name, a := range in {
		switch a := a.(type) {
		case dsschema.StringAttribute:
			out[name] = schema.StringAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed,
				Sensitive: a.Sensitive, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		case dsschema.ListAttribute:
			out[name] = schema.ListAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed,
				Sensitive: a.Sensitive, ElementType: a.ElementType, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		case dsschema.MapAttribute:
			out[name] = schema.MapAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed,
				Sensitive: a.Sensitive, ElementType: a.ElementType, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		case dsschema.Int64Attribute:
			out[name] = schema.Int64Attribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed,
				Sensitive: a.Sensitive, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		case dsschema.BoolAttribute:
			out[name] = schema.BoolAttribute{Required: a.Required, Optional: a.Optional, Computed: a.Computed,
				Sensitive: a.Sensitive, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
		default:
			panic(fmt.Sprintf("ephemeralAttributes: attribute %s has unsupported type %T", name, a))
		}
	}
	return out
}

func (e *execEphemeral) ConfigValidators(context.Context) []ephemeral.ConfigValidator {
	return []ephemeral.ConfigValidator{
		ephemeralvalidator.ExactlyOneOf(path.MatchRoot("command"), path.MatchRoot("shell")),
		ephemeralvalidator.Conflicting(path.MatchRoot("allow_non_zero_exit_code"), path.MatchRoot("expect_exit_codes")),
		localUserValidator{},
	}
}

func (e *execEphemeral) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	e.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

// Open runs the command with its environment treated as secret: the values
// are redacted from errors, the output is returned as printed.
func (e *execEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m commandModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	env := map[string]string{}
	resp.Diagnostics.Append(m.Environment.ElementsAs(ctx, &env, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	configured := m.Environment
	m.Environment = types.MapNull(types.StringType) // given as secret environment instead
	resp.Diagnostics.Append(m.run(ctx, e.eng, env, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Environment = configured
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}
