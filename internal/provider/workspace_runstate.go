package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The declared run state (run_state), what creation and start wait for
// (wait_until) and a container's health check (docker.healthcheck).

func runStateAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Computed: true,
		Default:  stringdefault.StaticString(workspace.RunRunning),
		MarkdownDescription: "Declared run state: `\"running\"` (default), `\"stopped\"` or `\"paused\"`. Refresh reads the " +
			"observed state; the apply puts it back in place. Entry writes and commands bring a stopped or paused workspace up and put it " +
			"back. Docker only (`\"stopped\"` not with `docker.disk`): refused at plan time on `local` and `kubernetes`. " +
			"[Details](#run-state-and-readiness).",
		Validators: []validator.String{stringvalidator.OneOf(workspace.RunRunning, workspace.RunStopped, workspace.RunPaused)},
	}
}

func waitUntilAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		Computed: true,
		Default:  stringdefault.StaticString(workspace.WaitStarted),
		MarkdownDescription: "What creating or starting the workspace waits for: `\"started\"` (default) or `\"healthy\"`: " +
			"the container's `docker.healthcheck` passes (required then). A check that does not pass within 5 minutes, or " +
			"that Docker reports unhealthy, fails the apply with its last results. Changed in place.",
		Validators: []validator.String{stringvalidator.OneOf(workspace.WaitStarted, workspace.WaitHealthy)},
	}
}

var healthcheckAttrTypes = map[string]attr.Type{
	"test": types.ListType{ElemType: types.StringType}, "interval": types.StringType, "timeout": types.StringType,
	"start_period": types.StringType, "retries": types.Int64Type,
}

type healthcheckModel struct {
	Test        types.List   `tfsdk:"test"`
	Interval    types.String `tfsdk:"interval"`
	Timeout     types.String `tfsdk:"timeout"`
	StartPeriod types.String `tfsdk:"start_period"`
	Retries     types.Int64  `tfsdk:"retries"`
}

const healthcheckReplaceDesc = "Changing it replaces the container."

func healthcheckBlock() schema.SingleNestedBlock {
	dur := func(what, def string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Validators: []validator.String{healthDurationValidator{}},
			MarkdownDescription: what + ", a duration such as `\"2s\"` (at least `1ms`); Docker's default " + def + "."}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "Docker's own health check of the container (its `HEALTHCHECK`), which `wait_until = \"healthy\"` " +
			"waits for. " + healthcheckReplaceDesc,
		PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(replaceIfHealthcheckChanges,
			healthcheckReplaceDesc, healthcheckReplaceDesc)},
		Attributes: map[string]schema.Attribute{
			"test": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "The check, as Docker writes it: `[\"CMD\", \"program\", \"arg\", ...]` (run directly) or " +
					"`[\"CMD-SHELL\", \"command\"]` (run with `/bin/sh -c`); exit status 0 is healthy. Required in the block."},
			"interval":     dur("Time between checks", "`30s`"),
			"timeout":      dur("Time a check may take before it counts as failed", "`30s`"),
			"start_period": dur("Time after the start during which failures do not count", "`0s`"),
			"retries": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)},
				MarkdownDescription: "Failures in a row that make the container unhealthy; Docker's default 3."},
		},
	}
}

// replaceIfHealthcheckChanges replaces the container when its health
// check changes in meaning (a duration spelled differently is no change).
func replaceIfHealthcheckChanges(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.StateValue.IsUnknown() || req.PlanValue.IsUnknown() {
		resp.RequiresReplace = !req.StateValue.Equal(req.PlanValue)
		return
	}
	a := healthcheckOf(ctx, req.StateValue, &diag.Diagnostics{})
	b := healthcheckOf(ctx, req.PlanValue, &diag.Diagnostics{})
	resp.RequiresReplace = (a == nil) != (b == nil) || (a != nil && (!slices.Equal(a.Test, b.Test) ||
		a.Interval != b.Interval || a.Timeout != b.Timeout || a.StartPeriod != b.StartPeriod || a.Retries != b.Retries))
}

// healthcheckOf reads a healthcheck block (nil when it is not set or
// unknown; unknown values inside read as unset).
func healthcheckOf(ctx context.Context, o types.Object, diags *diag.Diagnostics) *spec.Healthcheck {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	var m healthcheckModel
	if diags.Append(o.As(ctx, &m, basetypes.ObjectAsOptions{})...); diags.HasError() {
		return nil
	}
	h := &spec.Healthcheck{Retries: int(m.Retries.ValueInt64())}
	diags.Append(m.Test.ElementsAs(ctx, &h.Test, false)...)
	for _, d := range []struct {
		v   types.String
		out *time.Duration
	}{{m.Interval, &h.Interval}, {m.Timeout, &h.Timeout}, {m.StartPeriod, &h.StartPeriod}} {
		if !d.v.IsNull() && !d.v.IsUnknown() {
			*d.out, _ = time.ParseDuration(d.v.ValueString())
		}
	}
	return h
}

// healthcheckObject is the block for an imported container's check.
func healthcheckObject(h *spec.Healthcheck) types.Object {
	if h == nil {
		return types.ObjectNull(healthcheckAttrTypes)
	}
	test := make([]attr.Value, 0, len(h.Test))
	for _, t := range h.Test {
		test = append(test, types.StringValue(t))
	}
	dur := func(d time.Duration) types.String {
		if d == 0 {
			return types.StringNull()
		}
		return types.StringValue(d.String())
	}
	retries := types.Int64Null()
	if h.Retries != 0 {
		retries = types.Int64Value(int64(h.Retries))
	}
	return types.ObjectValueMust(healthcheckAttrTypes, map[string]attr.Value{
		"test": types.ListValueMust(types.StringType, test), "interval": dur(h.Interval), "timeout": dur(h.Timeout),
		"start_period": dur(h.StartPeriod), "retries": retries,
	})
}

// healthDurationValidator requires a Go duration of at least 1ms, as Docker does.
type healthDurationValidator struct{}

func (healthDurationValidator) Description(context.Context) string {
	return "a duration such as \"2s\", at least 1ms"
}

func (v healthDurationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (healthDurationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d < time.Millisecond {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is not a duration of at least 1ms; write it as \"500ms\", \"2s\" or \"1m30s\".", req.ConfigValue.ValueString()))
	}
}

// runStateRefusals say, per kind, why it cannot take a run state other than running.
var runStateRefusals = map[string]string{
	"local": "a local workspace is a directory on this machine: it has no processes of its own to stop or pause. " +
		"Remove run_state (or set it to \"running\"), or use a docker workspace.",
	"kubernetes": "a Kubernetes pod cannot be stopped or paused: its containers run until the pod is deleted. To stop " +
		"paying for it, destroy the workspace (or remove it from the configuration) and create it again later, or use an " +
		"agent_sandbox workspace, whose Sandbox can be suspended. Remove run_state (or set it to \"running\").",
}

// validateRunState checks run_state, wait_until and the health check
// against the configured kind, each error on its attribute.
func validateRunState(ctx context.Context, m workspaceModel, kind string, diags *diag.Diagnostics) {
	state := m.RunState.ValueString()
	if why, ok := runStateRefusals[kind]; ok && !m.RunState.IsUnknown() && !m.RunState.IsNull() && state != workspace.RunRunning {
		diags.AddAttributeError(path.Root("run_state"), "Run state not supported by this workspace kind",
			fmt.Sprintf("run_state = %q: %s", state, why))
	}
	var d dockerModel
	if kind == "docker" {
		if diags.Append(m.Docker.As(ctx, &d, basetypes.ObjectAsOptions{})...); diags.HasError() {
			return
		}
		if state == workspace.RunStopped && !d.Disk.IsNull() {
			diags.AddAttributeError(path.Root("run_state"), "A stopped container loses its tmpfs root",
				"run_state = \"stopped\" with docker.disk set would wipe the workspace root on every stop: with disk, the root is "+
					"a tmpfs, which does not survive a stop. Use run_state = \"paused\" (the memory is kept), or remove disk.")
		}
		validateHealthcheck(ctx, d.Healthcheck, diags)
	}
	if m.WaitUntil.ValueString() != workspace.WaitHealthy {
		return
	}
	switch {
	case kind == "docker" && d.Healthcheck.IsNull():
		diags.AddAttributeError(path.Root("wait_until"), "Nothing to wait for",
			"wait_until = \"healthy\" waits for the container's health check, and this docker block has none: add "+
				"docker.healthcheck { test = [\"CMD-SHELL\", \"...\"] }, or remove wait_until.")
	case kind == "local":
		diags.AddAttributeError(path.Root("wait_until"), "Nothing to wait for",
			"a local workspace has no health check: remove wait_until (or set it to \"started\"), or use a docker workspace.")
	}
}

func validateHealthcheck(ctx context.Context, o types.Object, diags *diag.Diagnostics) {
	if o.IsNull() || o.IsUnknown() {
		return
	}
	var m healthcheckModel
	if diags.Append(o.As(ctx, &m, basetypes.ObjectAsOptions{})...); diags.HasError() || m.Test.IsUnknown() {
		return
	}
	p := path.Root("docker").AtName("healthcheck").AtName("test")
	var test []types.String
	diags.Append(m.Test.ElementsAs(ctx, &test, false)...)
	if m.Test.IsNull() || len(test) == 0 {
		diags.AddAttributeError(p, "Missing health check test",
			"a healthcheck block needs test, such as test = [\"CMD-SHELL\", \"test -e /tmp/ready\"] or "+
				"test = [\"CMD\", \"/bin/check\", \"--quick\"].")
		return
	}
	if test[0].IsUnknown() {
		return
	}
	switch first := test[0].ValueString(); {
	case first == "CMD" && len(test) >= 2, first == "CMD-SHELL" && len(test) == 2:
	default:
		diags.AddAttributeError(p, "Invalid health check test",
			fmt.Sprintf("test must be [\"CMD\", program, args...] or [\"CMD-SHELL\", command], as Docker writes it; got %d "+
				"element(s) starting with %q.", len(test), first))
	}
}
