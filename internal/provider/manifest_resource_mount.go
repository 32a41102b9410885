package provider

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// The mount half of sandbox_manifest: write-only credentials keyed by
// entry path, the mount resources' plan-time checks on every mount entry,
// and what the last apply mounted (private state), so that destroy can
// unmount without the credentials.

// mountsAppliedKey is the private state key holding the last apply's
// mounts (map of entry path to workspace.MountApplied, as JSON).
const mountsAppliedKey = "mounts"

// mountCredentialFields are the attributes of one mount_credentials_wo
// entry: every secret field of the six mount types, by the Python SDK's
// name, with the types that have it.
func mountCredentialFields() map[string][]string {
	out := map[string][]string{}
	for _, typ := range sandboxSortedKeys(mountTypes) {
		for _, f := range workspace.MountSecretFields(typ) {
			out[f] = append(out[f], typ)
		}
	}
	return out
}

func manifestMountAttributes(attrs map[string]schema.Attribute) {
	nested := map[string]schema.Attribute{}
	for f, types := range mountCredentialFields() {
		nested[f] = schema.StringAttribute{Optional: true, WriteOnly: true,
			MarkdownDescription: "`" + f + "` for " + backtickList(types) + " entries (the mount resource's `" + f + "_wo`)."}
	}
	attrs["mount_credentials_wo"] = schema.MapNestedAttribute{
		Optional: true, WriteOnly: true,
		MarkdownDescription: "Secrets of mount entries per entry path, named as in the Python SDK (the mount resources' " +
			"`*_wo` attributes without `_wo`): `{ data = { access_key_id = ..., secret_access_key = ... } }`. Write-only: " +
			"never in state or plans, removed from errors. A key naming no mount entry, or a field its type lacks, fails " +
			"the plan. [Mount entries](#mount-entries).",
		NestedObject: schema.NestedAttributeObject{Attributes: nested},
	}
}

func backtickList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, " or ")
}

// mountInputs adds the mount entries' credentials from cfg (nil when the
// configuration is not available), the credentials version and the last
// apply's mounts to in. Keys naming no mount entry, and fields the entry's
// type lacks, are reported on their attribute.
func mountInputs(ctx context.Context, in *workspace.ManifestInputs, typeOf map[string]string, m, cfg *manifestResourceModel, private privateGetter) diag.Diagnostics {
	var diags diag.Diagnostics
	in.MountCredentials = map[string]map[string]string{}
	if !m.CredsVersion.IsNull() && !m.CredsVersion.IsUnknown() {
		in.CredentialsVersion = strconv.FormatInt(m.CredsVersion.ValueInt64(), 10)
	}
	if private != nil {
		if b, d := private.GetKey(ctx, mountsAppliedKey); !d.HasError() && len(b) > 0 {
			_ = json.Unmarshal(b, &in.MountApplied) // an unreadable record only costs a remount
		}
	}
	if cfg == nil || cfg.MountCredentialsWO.IsNull() || cfg.MountCredentialsWO.IsUnknown() {
		return diags
	}
	var creds map[string]map[string]types.String
	for k, v := range cfg.MountCredentialsWO.Elements() {
		o, ok := v.(types.Object)
		if !ok || o.IsNull() {
			continue
		}
		if creds == nil {
			creds = map[string]map[string]types.String{}
		}
		creds[k] = map[string]types.String{}
		for name, a := range o.Attributes() {
			if s, ok := a.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
				creds[k][name] = s
			}
		}
	}
	for _, k := range sandboxSortedKeys(creds) {
		p := path.Root("mount_credentials_wo").AtMapKey(k)
		rel, err := posix.ValidateEntryPath(k)
		typ := typeOf[rel]
		if err != nil || typ == "" {
			diags.AddAttributeError(p, "Not a mount entry", "the key "+sandbox.QuoteText(k)+" names no mount entry of "+
				"manifest_json; use the entry's path as it appears in the manifest")
			continue
		}
		allowed := workspace.MountSecretFields(typ)
		vals := map[string]string{}
		for _, f := range sandboxSortedKeys(creds[k]) {
			if !slices.Contains(allowed, f) {
				diags.AddAttributeError(p, "Credential not used by "+typ, "entry "+sandbox.QuoteText(k)+": "+f+
					" is not a credential of "+typ+"; its credentials are "+strings.Join(allowed, ", "))
				continue
			}
			vals[f] = creds[k][f].ValueString()
		}
		in.MountCredentials[rel] = vals
	}
	return diags
}

// mountEntryTypes returns the mount entries of a plan, path to type.
func mountEntryTypes(plan *workspace.ManifestPlan) map[string]string {
	out := map[string]string{}
	if plan == nil {
		return out
	}
	for _, pe := range plan.Entries {
		if pe.Mount != nil {
			out[pe.Path] = pe.Entry.Type
		}
	}
	return out
}

// checkManifestMounts runs the mount resources' plan-time checks on every
// mount entry of the plan: the credential boundary and credential files for
// any workspace, then, when workspace id exists, its support for the mount
// (backend, FUSE grant), the mount path and the boundary for its root and
// backend. A workspace without the FUSE grant is a warning, as for the mount
// resources (a destroy plan must stay possible).
func (r *manifestResource) checkManifestMounts(ctx context.Context, plan *workspace.ManifestPlan, id string, diags *diag.Diagnostics) {
	for _, pe := range plan.Entries {
		if pe.Mount == nil {
			continue
		}
		in := mountInput{m: pe.Mount, rel: pe.Path}
		if err := r.checkMountOn(ctx, in, id, diags); err != nil {
			addManifestMountError(diags, pe, err)
		}
	}
}

func (r *manifestResource) checkMountOn(ctx context.Context, in mountInput, id string, diags *diag.Diagnostics) error {
	if err := in.checkBoundary(workspace.DefaultDockerRoot, ""); err != nil {
		return err
	}
	if f := in.credentialFileInWorkspace(); f != "" {
		return credentialFileError(in, f)
	}
	if id == "" || !workspace.ValidID(id) {
		return nil // the workspace is created in this apply
	}
	w, err := r.eng.CheckMountWorkspace(ctx, id, in.m)
	switch {
	case workspaceGone(err), workspaceStopped(err):
		return nil
	case errors.Is(err, workspace.ErrNoFUSE):
		diags.AddAttributeWarning(path.Root("workspace_id"), "Workspace cannot take mount entry "+sandbox.QuoteText(in.rel),
			err.Error()+"\n\nApplying this plan will fail when the mount is made.")
		return nil
	case err != nil:
		return err
	}
	mp, err := workspace.ResolveMountPath(w.Root, in.rel, in.m)
	if err != nil {
		return err
	}
	if err := workspace.CheckMountPath(w, mp); err != nil {
		return err
	}
	if err := in.checkBoundary(w.Root, workspace.MountBackend(w)); err != nil {
		return err
	}
	if f := in.credentialFileUnder(w.Root); f != "" {
		return credentialFileError(in, f)
	}
	return nil
}

func credentialFileError(in mountInput, field string) error {
	return mount.NewConfigError("credential files stored in the manifest are not supported for cloud mounts; configure "+
		"credentials outside the sandbox manifest", map[string]any{"mount_type": in.m.Type, "credential_field": field})
}

// addManifestMountError reports a mount entry's error on
// mount_credentials_wo when it names one of the entry's secret fields, else
// on manifest_json, naming the entry.
func addManifestMountError(diags *diag.Diagnostics, pe workspace.PlannedEntry, err error) {
	err = mount.Redact(err, mount.Secrets(pe.Mount))
	p := path.Root("manifest_json")
	var se *sandbox.Error
	if errors.As(err, &se) {
		secret := workspace.MountSecretFields(pe.Entry.Type)
		for _, k := range []string{"credential_fields", "configuration_fields", "credential_field"} {
			for _, n := range contextNames(se.Context[k]) {
				if slices.Contains(secret, n) {
					p = path.Root("mount_credentials_wo")
				}
			}
		}
	}
	addEngineAttributeError(diags, p, "Mount entry "+sandbox.QuoteText(pe.Path)+" ("+pe.Entry.Type+") refused", err)
}

func contextNames(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []string:
		out = append(out, v...)
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// recordMountsApplied keeps the plan's mounts in private state.
func recordMountsApplied(ctx context.Context, p privateSetter, plan *workspace.ManifestPlan) diag.Diagnostics {
	b, err := json.Marshal(plan.MountApplied())
	if err != nil {
		return nil
	}
	return p.SetKey(ctx, mountsAppliedKey, b)
}

// unmountRecorded unmounts the mounts the last apply recorded in private
// state, in workspace id, and returns them; a vanished workspace has
// nothing mounted.
func (r *manifestResource) unmountRecorded(ctx context.Context, id string, private privateGetter) (map[string]workspace.MountApplied, error) {
	var applied map[string]workspace.MountApplied
	b, d := private.GetKey(ctx, mountsAppliedKey)
	if d.HasError() || len(b) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(b, &applied); err != nil || len(applied) == 0 {
		return nil, nil //nolint:nilerr // an unreadable record: nothing known to unmount
	}
	ws, err := r.eng.Open(ctx, id)
	if workspaceGone(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return applied, ws.UnmountManifest(ctx, applied)
}
