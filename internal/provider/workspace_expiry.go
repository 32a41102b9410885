package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// expiryModel is the part of a workspace's state planExpired reads.
type expiryModel struct {
	Lifetime  types.String `tfsdk:"lifetime"`
	OnExpiry  types.String `tfsdk:"on_expiry"`
	ExpiresAt types.String `tfsdk:"expires_at"`
}

const expiryReplaceDesc = "Changing it replaces the workspace (an equal duration such as `\"120m\"` for `\"2h\"` does not)."

// expiryAttributes are lifetime, on_expiry and expires_at.
func expiryAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"lifetime": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "How long the workspace lives, a Go duration such as `\"90s\"`, `\"30m\"` or `\"2h\"` (positive, " +
				"at least `1s`); unset for no expiry. The backend enforces it without Terraform: a container stops, a pod " +
				"ends with `DeadlineExceeded`; a local directory cannot, and plans its replacement. " + expiryReplaceDesc +
				" [Details](#expiry).",
			Validators:    []validator.String{lifetimeValidator{}},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceIfLifetimeChanged, expiryReplaceDesc, expiryReplaceDesc)},
		},
		"on_expiry": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "What happens at `expires_at`: `\"stop\"` (default; the container or pod stays, stopped) or " +
				"`\"remove\"` (the Docker daemon removes the container; the cluster deletes the pod and its Service). Needs " +
				"`lifetime`. Changing it replaces the workspace.",
			Validators: []validator.String{stringvalidator.OneOf(sandbox.OnExpiryStop, sandbox.OnExpiryRemove)},
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(replaceIfOnExpiryChanged,
				"Changing it replaces the workspace.", "Changing it replaces the workspace.")},
		},
		"expires_at": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "When the workspace expires (RFC 3339, UTC, whole seconds): its creation time plus `lifetime`, " +
				"fixed at creation and read back from the workspace (container label or pod annotation `sandbox.expires_at`, " +
				"local marker). Null without `lifetime`. A plan after it replaces the workspace with a warning.",
			PlanModifiers: []planmodifier.String{expiresAtPlan{}},
		},
	}
}

// lifetimeValidator checks lifetime with the engine's rules.
type lifetimeValidator struct{}

func (lifetimeValidator) Description(context.Context) string {
	return "a positive Go duration of at least one second"
}

func (v lifetimeValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (lifetimeValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := sandbox.ParseLifetime(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid lifetime", err.Error()+".")
	}
}

// sameLifetime compares two lifetimes as durations; null is no lifetime.
func sameLifetime(a, b types.String) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() == b.IsNull()
	}
	da, ea := sandbox.ParseLifetime(a.ValueString())
	db, eb := sandbox.ParseLifetime(b.ValueString())
	if ea != nil || eb != nil {
		return a.ValueString() == b.ValueString()
	}
	return da == db
}

func replaceIfLifetimeChanged(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.PlanValue.IsUnknown() && !sameLifetime(req.StateValue, req.PlanValue)
}

// effectiveOnExpiry is on_expiry with its default.
func effectiveOnExpiry(v types.String) string {
	if v.IsNull() || v.ValueString() == "" {
		return sandbox.OnExpiryStop
	}
	return v.ValueString()
}

func replaceIfOnExpiryChanged(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	resp.RequiresReplace = !req.PlanValue.IsUnknown() && effectiveOnExpiry(req.StateValue) != effectiveOnExpiry(req.PlanValue)
}

// expiresAtPlan plans expires_at: null without lifetime, the prior value
// while the lifetime stays the same, else known only after the creation.
type expiresAtPlan struct{}

func (expiresAtPlan) Description(context.Context) string {
	return "fixed at creation; null without lifetime"
}

func (m expiresAtPlan) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (expiresAtPlan) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	var lifetime, prior types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("lifetime"), &lifetime)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("lifetime"), &prior)...)
	}
	switch {
	case lifetime.IsNull():
		resp.PlanValue = types.StringNull()
	case !req.State.Raw.IsNull() && !lifetime.IsUnknown() && sameLifetime(prior, lifetime) && !req.StateValue.IsNull():
		resp.PlanValue = req.StateValue
	default:
		resp.PlanValue = types.StringUnknown()
	}
}

// validateExpiry checks at plan time what the configuration alone decides:
// on_expiry needs lifetime, and a container the daemon removes at its
// expiry cannot have a restart policy.
func validateExpiry(ctx context.Context, m workspaceModel, cfg tfsdk.Config, diags *diag.Diagnostics) {
	if m.OnExpiry.IsNull() || m.OnExpiry.IsUnknown() {
		return
	}
	if m.Lifetime.IsNull() {
		diags.AddAttributeError(path.Root("on_expiry"), "on_expiry without lifetime",
			"on_expiry says what happens when the workspace's lifetime ends; set lifetime (such as \"2h\") too, or remove on_expiry.")
		return
	}
	if m.OnExpiry.ValueString() != sandbox.OnExpiryRemove || m.Docker.IsNull() {
		return
	}
	var restart types.String
	diags.Append(cfg.GetAttribute(ctx, path.Root("docker").AtName("restart_policy"), &restart)...)
	if !restart.IsNull() && !restart.IsUnknown() && restart.ValueString() != "no" {
		diags.AddAttributeError(path.Root("on_expiry"), "on_expiry = \"remove\" with a restart policy",
			fmt.Sprintf("the Docker daemon removes an expired container only when it would not restart it: restart_policy %q "+
				"conflicts with on_expiry = \"remove\". Use restart_policy = \"no\", or on_expiry = \"stop\".", restart.ValueString()))
	}
}

// newExpiry is the expiry of a workspace created now from the plan.
func newExpiry(m workspaceModel, diags *diag.Diagnostics) sandbox.Expiry {
	x, err := sandbox.NewExpiry(time.Now(), m.Lifetime.ValueString(), m.OnExpiry.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("lifetime"), "Invalid lifetime", err.Error())
	}
	return x
}

// setExpiry records what the workspace says of its expiry in m. An
// imported workspace (no lifetime in state yet) also gets lifetime and a
// non-default on_expiry back.
func setExpiry(w *workspace.Workspace, m *workspaceModel) {
	if w.Expiry.IsZero() {
		m.ExpiresAt = types.StringNull()
		return
	}
	m.ExpiresAt = types.StringValue(w.Expiry.String())
	if m.Lifetime.IsNull() && w.Expiry.Lifetime != "" {
		m.Lifetime = types.StringValue(w.Expiry.Lifetime)
		if w.Expiry.Remove() {
			m.OnExpiry = types.StringValue(sandbox.OnExpiryRemove)
		}
	}
}

// expiredAt returns the deadline a state's expires_at records and whether
// it has passed.
func expiredAt(v types.String) (string, bool) {
	if v.IsNull() || v.IsUnknown() {
		return "", false
	}
	t, err := time.Parse(time.RFC3339, v.ValueString())
	return v.ValueString(), err == nil && !time.Now().Before(t)
}

// planExpired plans the replacement of a workspace past its expires_at,
// with a warning naming it; it reports whether it did. Nothing is touched:
// the backend has stopped the workspace (or, on the local backend, nothing
// could), and the apply creates a new one.
func planExpired(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	var st expiryModel
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("lifetime"), &st.Lifetime)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("on_expiry"), &st.OnExpiry)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("expires_at"), &st.ExpiresAt)...)
	at, expired := expiredAt(st.ExpiresAt)
	if !expired {
		return false
	}
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.AddAttributeWarning(path.Root("expires_at"), "Workspace expired",
		fmt.Sprintf("workspace %s expired at %s (lifetime %s, on_expiry %q): %s. The apply replaces it with a new "+
			"workspace and a new expires_at; its entries are created again.",
			id.ValueString(), at, st.Lifetime.ValueString(), effectiveOnExpiry(st.OnExpiry), expiredWhat(id.ValueString())))
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("expires_at"), types.StringUnknown())...)
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("expires_at"))
	return true
}

// expiredWhat says what the backend did at the expiry.
func expiredWhat(id string) string {
	ref, err := workspace.ParseID(id)
	if err == nil && ref.Kind == "local" {
		return "nothing enforces a local workspace's lifetime, so its directory is still there"
	}
	return "its backend stopped it at that time"
}

// warnExpiredGone explains, on a refresh, a workspace that is gone after its
// expiry: its creation is planned as for any missing workspace.
func warnExpiredGone(m workspaceModel, diags *diag.Diagnostics) {
	at, expired := expiredAt(m.ExpiresAt)
	if !expired {
		return
	}
	diags.AddWarning("Workspace expired",
		fmt.Sprintf("workspace %s expired at %s (lifetime %s, on_expiry %q) and its backend ended it; the plan creates a new "+
			"workspace with a new expires_at.", m.ID.ValueString(), at, m.Lifetime.ValueString(), effectiveOnExpiry(m.OnExpiry)))
}
