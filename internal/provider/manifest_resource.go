package provider

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure  = (*manifestResource)(nil)
	_ resource.ResourceWithModifyPlan = (*manifestResource)(nil)
)

// NewManifestResource returns the sandbox_manifest resource: a Python SDK JSON
// manifest applied to a workspace.
func NewManifestResource() resource.Resource { return &manifestResource{} }

type manifestResource struct {
	eng *workspace.Engine
}

func (r *manifestResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_manifest"
}

func (r *manifestResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = manifestResourceSchema()
	manifestGitAttributes(resp.Schema.Attributes)
	manifestMountAttributes(resp.Schema.Attributes)
}

func manifestResourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Applies a manifest written as the Python SDK's JSON (what the Python SDK's `Manifest.model_dump_json()` " +
			"writes, or `data.sandbox_manifest.json`) to a workspace: its `dir` (nested children included), `file`, " +
			"`local_file`, `local_dir` and `git_repo` entries, each followed by the Python SDK's chgrp and chmod, in the Python SDK's walk order, " +
			"then its mount entries (`s3_mount`, `gcs_mount`, `r2_mount`, `azure_blob_mount`, `s3_files_mount`, `box_mount`), mounted as " +
			"the mount resources mount them, their secrets in `mount_credentials_wo`. " +
			"A `git_repo` is fetched on the host as `sandbox_git_repo` does, its commit resolved at plan time. " +
			"A manifest's `environment`, `users`, `groups` and `extra_path_grants` fail the plan, naming the `sandbox_workspace` " +
			"attribute that takes them; a `root` is a warning. [Workspace parts](#workspace-parts). Relative `src` values resolve against " +
			"Terraform's working directory, confined as `sandbox_file.source`. Drift in any entry (content, mode, group, a " +
			"deleted entry, a file added to a `local_dir` copy) shows in the next plan as an update that restores it. " +
			"Destroy removes only what the manifest wrote. Import is not supported: the manifest is configuration, which " +
			"cannot be recovered from the files in a workspace.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "Random identifier of this application of the manifest.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"workspace_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "`id` of the `sandbox_workspace` to apply the manifest to. Changing it replaces the resource.",
				PlanModifiers:       []planmodifier.String{replaceWorkspaceID{}},
				Validators:          []validator.String{workspaceIDValidator{}},
			},
			"manifest_json": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "The manifest as the Python SDK's JSON, e.g. `file(\"manifest.json\")`, validated at plan " +
					"time with the Python SDK's messages (`Field required`, `manifest path must not escape root: <rel>`, ...). " +
					"A mount entry's secret fields are refused here (they would be stored in state): give them in " +
					"`mount_credentials_wo`. At most 4 MiB and 5,000 entries. [Validation](#validation).",
				Validators: []validator.String{manifestJSONValidator{}},
			},
			"entries": schema.MapNestedAttribute{
				Computed: true,
				MarkdownDescription: "Per entry path (nested children under their joined path): `type`, `sha256` (content or tree " +
					"digest; null for directories), `permissions` (four octal digits), `group`, for `git_repo`, `commit` and, for a mount, " +
					"`mounted`. Known at " +
					"plan time (a checkout's digest once its commit was fetched) and refreshed from the workspace, so drift shows. " +
					"[Digests](#digests-and-drift).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"type":        schema.StringAttribute{Computed: true, MarkdownDescription: "The entry's Python SDK type."},
					"sha256":      schema.StringAttribute{Computed: true, MarkdownDescription: "Content or tree digest; null for directories."},
					"permissions": schema.StringAttribute{Computed: true, MarkdownDescription: "Mode, e.g. `0755`; null when the entry is missing."},
					"group":       schema.StringAttribute{Computed: true, MarkdownDescription: "Group name, when the entry sets one."},
					"commit":      schema.StringAttribute{Computed: true, MarkdownDescription: "A `git_repo`'s 40-hex commit, resolved at plan time; null for other types."},
					"mounted": schema.BoolAttribute{Computed: true, MarkdownDescription: "For a mount entry, whether its mount is there and " +
						"answering (false after it went away: the next apply mounts it again); null for other types."},
				}},
			},
			"files": schema.MapAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Every file the manifest writes (`file` and `local_file` entries and the files of " +
					"`local_dir` copies and `git_repo` checkouts), workspace-relative path to hex SHA-256. Unknown in a plan " +
					"that fetches a new `git_repo` commit.",
			},
		},
	}
}

func (r *manifestResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

// planned reads the host sources, resolves the git_repo refs and returns
// the plan, its result and the inputs it was planned with.
func (r *manifestResource) planned(ctx context.Context, m, cfg *manifestResourceModel, private privateGetter) (*workspace.ManifestPlan, workspace.ManifestResult, workspace.ManifestInputs, diag.Diagnostics) {
	var diags diag.Diagnostics
	man, checked, err := parseManifest(m.ManifestJSON.ValueString())
	if err != nil {
		addEngineAttributeError(&diags, path.Root("manifest_json"), "Cannot plan the manifest", err)
		return nil, workspace.ManifestResult{}, workspace.ManifestInputs{}, diags
	}
	in, d := manifestInputs(ctx, man, m, cfg, private)
	d.Append(mountInputs(ctx, &in, mountEntryTypes(checked), m, cfg, private)...)
	if diags.Append(d...); diags.HasError() {
		return nil, workspace.ManifestResult{}, in, diags
	}
	plan, err := r.eng.PlanManifestFrom(maskManifestSecrets(ctx, in), man, in)
	if err != nil {
		addEngineAttributeError(&diags, manifestErrorPath(ctx, err, in, m), "Cannot plan the manifest", err)
		return nil, workspace.ManifestResult{}, in, diags
	}
	return plan, plan.Expected(), in, diags
}

func (r *manifestResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.eng == nil {
		return
	}
	var m manifestResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.ManifestJSON.IsUnknown() || !fullyKnown(m.GitURLs) {
		return
	}
	var cfg manifestResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() || !fullyKnown(cfg.GitCredentialsWO) || !fullyKnown(cfg.MountCredentialsWO) {
		return // planned again at apply, when every value is known
	}
	plan, expected, in, diags := r.planned(ctx, &m, &cfg, req.Private)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	ctx = maskManifestSecrets(ctx, in)
	wsID := ""
	if !m.WorkspaceID.IsUnknown() {
		wsID = m.WorkspaceID.ValueString()
	}
	if r.checkManifestMounts(ctx, plan, wsID, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(m.setResult(expected)...)
	if r.changes(ctx, req, &m) {
		ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
		if err == nil {
			err = ws.CheckManifestPaths(ctx, plan)
		}
		if err != nil && !workspaceGone(err) && !workspaceStopped(err) {
			addEngineAttributeError(&resp.Diagnostics, path.Root("manifest_json"), "Manifest entry paths are taken by something else", err)
			return
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

// changes reports whether applying the planned m would write anything: a
// new resource, or one whose entries differ from what Read observed. Only
// then are the entry paths checked (see checkEntryPath).
func (r *manifestResource) changes(ctx context.Context, req resource.ModifyPlanRequest, m *manifestResourceModel) bool {
	if m.WorkspaceID.IsUnknown() || !workspace.ValidID(m.WorkspaceID.ValueString()) {
		return false
	}
	if req.State.Raw.IsNull() {
		return true
	}
	var prior manifestResourceModel
	if d := req.State.Get(ctx, &prior); d.HasError() {
		return true
	}
	return !prior.WorkspaceID.Equal(m.WorkspaceID) || !prior.Entries.Equal(m.Entries) || !prior.Files.Equal(m.Files)
}

// apply plans again from the host and the remotes, refuses host sources
// changed and refs moved since the plan, applies, and records the
// checkouts in private. A failed first apply (create is true) is undone:
// no state will record what it did.
func (r *manifestResource) apply(ctx context.Context, m, cfg *manifestResourceModel, private privateState, create bool, diags *diag.Diagnostics) *workspace.ManifestPlan {
	plan, expected, in, d := r.planned(ctx, m, cfg, private)
	if diags.Append(d...); d.HasError() {
		return nil
	}
	ctx = maskManifestSecrets(ctx, in)
	if !m.Entries.IsUnknown() {
		var want manifestResourceModel
		if d := want.setResult(expected); !d.HasError() && (!want.Files.Equal(m.Files) || !want.Entries.Equal(m.Entries)) {
			addEngineError(diags, "Applying the manifest failed", errHostChangedSincePlan)
			return nil
		}
	}
	ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
	if err == nil {
		if _, err = ws.ApplyManifest(ctx, plan); err == nil || !create {
			// What was mounted, even by a failed update, is recorded so
			// that a destroy unmounts it.
			diags.Append(recordMountsApplied(ctx, private, plan)...)
		}
		if err == nil {
			err = ws.RecordEphemeral(ctx, workspace.ManifestOwner(m.ID.ValueString()), plan.EphemeralPaths())
		}
	}
	if err != nil {
		addEngineAttributeError(diags, manifestErrorPath(ctx, err, in, m), "Applying the manifest failed", err)
		if create && ws != nil {
			undoFailedCreate(ctx, ws, plan, diags)
		}
		return nil
	}
	diags.Append(recordGitApplied(ctx, private, plan)...)
	return plan
}

var errHostChangedSincePlan = &planError{"a host source of the manifest changed, or a git_repo ref moved, between plan and apply; run terraform plan again"}

type planError struct{ msg string }

func (e *planError) Error() string { return e.msg }

func (r *manifestResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m, cfg manifestResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = types.StringValue(uuid.NewString()) // the owner of its entries in the workspace's ephemeral record
	plan := r.apply(ctx, &m, &cfg, resp.Private, true, &resp.Diagnostics)
	if plan == nil {
		return
	}
	resp.Diagnostics.Append(m.setResult(plan.Expected())...)
	resp.Diagnostics.Append(recordWritten(ctx, resp.Private, m.Files)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *manifestResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m manifestResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, plan, err := parseManifest(m.ManifestJSON.ValueString())
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid manifest in state", err)
		return
	}
	ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
	var observed workspace.ManifestResult
	if err == nil {
		observed, err = ws.ReadManifest(ctx, plan)
	}
	if workspaceGone(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if workspaceStopped(err) {
		return // nothing can be read in a stopped container: state stays as it was
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Reading the manifest's entries failed", err)
		return
	}
	keepCommits(ctx, &m, observed)
	resp.Diagnostics.Append(m.setResult(observed)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *manifestResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, prior, cfg manifestResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan := r.apply(ctx, &m, &cfg, resp.Private, false, &resp.Diagnostics)
	if plan == nil {
		return
	}
	expected := plan.Expected()
	// Remove what the previous manifest wrote and this one does not.
	var staleFiles []string
	oldFiles, _ := r.written(ctx, req.Private, &prior)
	for _, f := range oldFiles {
		if _, keep := expected.Files[f]; !keep {
			staleFiles = append(staleFiles, f)
		}
	}
	var staleEntries []workspace.PlannedEntry
	if _, old, err := parseManifest(prior.ManifestJSON.ValueString()); err == nil {
		for _, pe := range old.Entries {
			if _, keep := expected.Entries[pe.Path]; !keep {
				staleEntries = append(staleEntries, pe)
			}
		}
	}
	warnings, err := r.remove(ctx, m.WorkspaceID.ValueString(), staleEntries, staleFiles)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Removing entries the manifest no longer has failed", err)
		return
	}
	for _, w := range warnings {
		resp.Diagnostics.AddWarning("Directory left in place", w)
	}
	resp.Diagnostics.Append(m.setResult(expected)...)
	resp.Diagnostics.Append(recordWritten(ctx, resp.Private, m.Files)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// written returns the files recorded at the last apply (private state, so
// files others added to a local_dir copy are never removed), or the files
// in state when no record exists.
func (r *manifestResource) written(ctx context.Context, p privateGetter, m *manifestResourceModel) ([]string, diag.Diagnostics) {
	b, diags := p.GetKey(ctx, writtenKey)
	var names []string
	if len(b) > 0 && json.Unmarshal(b, &names) == nil {
		return names, diags
	}
	files, d := m.resultFiles(ctx)
	return files, append(diags, d...)
}

func (r *manifestResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m manifestResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, plan, err := parseManifest(m.ManifestJSON.ValueString())
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid manifest in state", err)
		return
	}
	// Unmount first: removing the other entries never reaches into a mount.
	mounted, err := r.unmountRecorded(ctx, m.WorkspaceID.ValueString(), req.Private)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Unmounting the manifest's mount entries failed", err)
		return
	}
	files, d := r.written(ctx, req.Private, &m)
	resp.Diagnostics.Append(d...)
	entries := slices.Concat(plan.Entries, workspace.RecordedMountEntries(mounted, plan.Entries))
	warnings, err := r.remove(ctx, m.WorkspaceID.ValueString(), entries, files)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Removing the manifest's entries failed", err)
		return
	}
	for _, w := range warnings {
		resp.Diagnostics.AddWarning("Directory left in place", w)
	}
	if len(plan.EphemeralPaths()) > 0 {
		if ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString()); err == nil {
			forgetEphemeral(ctx, ws, workspace.ManifestOwner(m.ID.ValueString()), &resp.Diagnostics)
		}
	}
}

// remove undoes entries of the manifest in workspace id, removing only the
// files listed; a vanished workspace has nothing left to remove.
func (r *manifestResource) remove(ctx context.Context, id string, entries []workspace.PlannedEntry, files []string) ([]string, error) {
	ws, err := r.eng.Open(ctx, id)
	if workspaceGone(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ws.RemoveManifest(ctx, entries, files)
}
