package provider

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// restoreFromAttribute is sandbox_workspace.restore_from.
func restoreFromAttribute() schema.Attribute {
	exactlyOne := stringvalidator.ExactlyOneOf(path.MatchRelative().AtParent().AtName("path"),
		path.MatchRelative().AtParent().AtName("url"), path.MatchRelative().AtParent().AtName("workspace_id"))
	needsSum := stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("sha256"))
	attrs := s3AccessAttributes(nil)
	attrs["path"] = schema.StringAttribute{Optional: true, MarkdownDescription: "Host path of a `local` archive " +
		"(`sandbox_snapshot.x.path`). Set exactly one of `path`, `url` and `workspace_id`.",
		Validators: []validator.String{stringvalidator.LengthAtLeast(1), exactlyOne, needsSum}}
	attrs["url"] = schema.StringAttribute{Optional: true, MarkdownDescription: "An `s3` archive as " +
		"`s3://<bucket>/<key>` (`sandbox_snapshot.x.url`), reached with `endpoint_url`, `region` and the keys below. " +
		s3EnvCredentialsNote, Validators: []validator.String{s3URLValidator{}, exactlyOne, needsSum}}
	attrs["workspace_id"] = schema.StringAttribute{Optional: true, MarkdownDescription: "A fast fork: the `id` of " +
		"another local workspace whose current tree (what a snapshot would hold, checked by the same rules) is copied " +
		"into this local one without an archive: reflinks (`FICLONE`) where the filesystem has them, else " +
		"`copy_file_range`, else a streamed copy; the provider logs (INFO) which. Copied once, at creation.",
		Validators: []validator.String{exactlyOne, workspaceIDValidator{},
			stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("sha256"))}}
	attrs["sha256"] = schema.StringAttribute{Optional: true, MarkdownDescription: "SHA-256 (hex) the archive must " +
		"have; required with `path` and `url`.",
		Validators: []validator.String{stringvalidator.RegexMatches(sha256Hex, "must be 64 lower-case hex digits")}}
	attrs["max_bytes"], attrs["max_files"] = archiveLimitAttributes("written in the workspace (the sizes of the archive's "+
		"regular files)", "files, directories and links written in the workspace")
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Hydrate the new workspace from a `sandbox_snapshot` archive (host `path` or S3 `url`, and `sha256`) or fork a local workspace (`workspace_id`). Every member is checked first; an unsafe or sparse member, a link leaving the root, an archive past `max_bytes`/`max_files` or " +
			"another sha256 refuses it, naming why, with nothing written. Changing it (not only its limits) replaces " +
			"the workspace.",
		Attributes: attrs,
		PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(restoreFromChanged,
			"Changing restore_from (other than its limits) replaces the workspace.",
			"Changing `restore_from` (other than its limits) replaces the workspace.")},
	}
}

// restoreFromChanged replaces the workspace when restore_from changes in
// anything but max_bytes and max_files, which only bound the restore.
func restoreFromChanged(_ context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.StateValue.IsNull() != req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	if req.StateValue.IsNull() {
		return
	}
	st, pl := req.StateValue.Attributes(), req.PlanValue.Attributes()
	for name, v := range pl {
		if name == "max_bytes" || name == "max_files" {
			continue
		}
		if sv, ok := st[name]; !ok || !sv.Equal(v) {
			resp.RequiresReplace = true
			return
		}
	}
}

// restoreSource reads restore_from (keys from cfg); ok is false when it
// is not set or not yet known.
func restoreSource(ctx context.Context, eng *workspace.Engine, o types.Object, cfg tfsdk.Config, diags *diag.Diagnostics) (src workspace.RestoreSource, sum string, ok bool) {
	if o.IsNull() || o.IsUnknown() {
		return src, "", false
	}
	str := func(name string) (string, bool) {
		v, _ := o.Attributes()[name].(types.String)
		return v.ValueString(), !v.IsUnknown()
	}
	p, pok := str("path")
	u, uok := str("url")
	sum, sok := str("sha256")
	endpoint, eok := str("endpoint_url")
	region, rok := str("region")
	if !pok || !uok || !sok || !eok || !rok || sum == "" || (p == "") == (u == "") {
		return src, "", false
	}
	num := func(name string) types.Int64 {
		v, _ := o.Attributes()[name].(types.Int64)
		return v
	}
	limits := engineOutputLimits(eng, num("max_bytes"), num("max_files"))
	if p != "" {
		return workspace.RestoreSource{Path: p, Limits: limits}, sum, true
	}
	bucket, key, err := s3store.ParseURL(u)
	if err != nil {
		return src, "", false // s3URLValidator reports it
	}
	creds, ok := s3Credentials(ctx, &cfg, path.Root("restore_from"), diags)
	if !ok {
		return src, "", false
	}
	loc := s3store.Location{Endpoint: endpoint, Region: region, Bucket: bucket, Key: key}
	return workspace.RestoreSource{S3: &loc, Credentials: creds, Limits: limits}, sum, true
}

// planRestore checks, reading only, the archive a new workspace will be
// restored from: it must be there with the planned sha256 and every member
// must be safe to extract.
func planRestore(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan workspaceModel) {
	if !req.State.Raw.IsNull() && !plan.ID.IsUnknown() {
		return
	}
	if id, ok := forkSource(plan.RestoreFrom); ok {
		if plan.Local.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("restore_from").AtName("workspace_id"), "Not a local workspace",
				"restore_from.workspace_id forks a local workspace into a local one; restore other kinds from a snapshot archive (path or url).")
		} else if _, err := eng.Open(ctx, id); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("restore_from").AtName("workspace_id"), "Cannot fork the workspace", err.Error())
		}
		return
	}
	src, sum, ok := restoreSource(ctx, eng, plan.RestoreFrom, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	if err := eng.CheckRestoreSource(ctx, src, sum); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("restore_from"), "Cannot restore from the archive", err.Error())
	}
}

// restoreWorkspace hydrates the just-created w from restore_from; on
// failure it removes w again, so nothing of the failed creation stays.
func (r *workspaceResource) restoreWorkspace(ctx context.Context, w *workspace.Workspace, m workspaceModel, cfg tfsdk.Config, diags *diag.Diagnostics) bool {
	var err error
	if id, ok := forkSource(m.RestoreFrom); ok {
		err = r.forkWorkspace(ctx, w, id, m.RestoreFrom)
	} else {
		src, sum, ok := restoreSource(ctx, r.eng, m.RestoreFrom, cfg, diags)
		if !ok {
			return !diags.HasError()
		}
		_, err = w.RestoreFrom(ctx, src, sum)
	}
	if err != nil {
		diags.AddAttributeError(path.Root("restore_from"), "Restoring the workspace failed", err.Error())
		// (ctx may have expired: the removal gets its own time.)
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		if derr := r.eng.Destroy(cctx, w.ID, false); derr != nil {
			diags.AddWarning("The new workspace was not removed", fmt.Sprintf("%s: %v", w.ID, derr))
		}
		return false
	}
	return true
}

// s3URLValidator checks restore_from.url at plan time.
type s3URLValidator struct{}

func (s3URLValidator) Description(context.Context) string {
	return "must be an s3://<bucket>/<key> URL"
}

func (v s3URLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (s3URLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, _, err := s3store.ParseURL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid restore_from.url", err.Error())
	}
}

// forkSource is restore_from.workspace_id when it is set and known.
func forkSource(o types.Object) (string, bool) {
	if o.IsNull() || o.IsUnknown() {
		return "", false
	}
	v, _ := o.Attributes()["workspace_id"].(types.String)
	return v.ValueString(), !v.IsNull() && !v.IsUnknown() && v.ValueString() != ""
}

// forkWorkspace copies the tree of workspace id into w and logs how.
func (r *workspaceResource) forkWorkspace(ctx context.Context, w *workspace.Workspace, id string, o types.Object) error {
	num := func(name string) types.Int64 {
		v, _ := o.Attributes()[name].(types.Int64)
		return v
	}
	start := time.Now()
	sum, err := w.ForkFrom(ctx, id, engineOutputLimits(r.eng, num("max_bytes"), num("max_files")))
	if err != nil {
		return err
	}
	tflog.Info(ctx, fmt.Sprintf("forked workspace %s into %s by %s: %d files (%d bytes), %d directories, %d links in %s",
		id, w.ID, sum.Method(), sum.Files, sum.Bytes, sum.Dirs, sum.Links, time.Since(start).Round(time.Millisecond)),
		map[string]any{"method": sum.Method(), "reflinked": sum.Reflinked, "copy_file_range": sum.Ranged, "streamed": sum.Streamed})
	return nil
}
