package provider

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
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

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// snapshotS3Model is sandbox_snapshot's s3 block; the write-only keys are
// read from the configuration, never from the plan or state.
type snapshotS3Model struct {
	Bucket               types.String `tfsdk:"bucket"`
	Prefix               types.String `tfsdk:"prefix"`
	EndpointURL          types.String `tfsdk:"endpoint_url"`
	Region               types.String `tfsdk:"region"`
	AccessKeyID          types.String `tfsdk:"access_key_id_wo"`
	SecretAccessKey      types.String `tfsdk:"secret_access_key_wo"`
	SessionToken         types.String `tfsdk:"session_token_wo"`
	CredentialsWOVersion types.Int64  `tfsdk:"credentials_wo_version"`
}

// privateS3Key holds what the upload returned that drift is judged by.
const privateS3Key = "s3_object"

type privateS3Object struct {
	ETag   string `json:"etag"`
	Signed bool   `json:"signed"`
}

func snapshotS3Block() schema.Block {
	attrs := s3AccessAttributes(replaceString)
	// Optional so that an absent block is valid; the block requires it.
	attrs["bucket"] = schema.StringAttribute{Optional: true, PlanModifiers: replaceString,
		MarkdownDescription: "Bucket name. Required in the block.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1), noLineBreaks{}}}
	attrs["prefix"] = schema.StringAttribute{Optional: true, PlanModifiers: replaceString,
		Validators: []validator.String{noLineBreaks{}, s3PrefixValidator{}},
		MarkdownDescription: "Key prefix; the object is `<prefix>/<snapshot_id>.tar` (leading `/` stripped). Default: the " +
			"bucket's top level."}
	attrs["credentials_wo_version"] = schema.Int64Attribute{Optional: true,
		MarkdownDescription: "Any number; change it when the write-only keys change (rotation). The snapshot is not taken " +
			"again: the keys are only used to reach the object."}
	return schema.SingleNestedBlock{
		MarkdownDescription: "Upload the archive to an S3 (or S3-compatible) bucket, streamed as a multipart upload. The " +
			"keys sign the upload and the plan's check of the object. Refresh and destroy get no write-only values from " +
			"Terraform: they use the `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY` environment variables (an upload made " +
			"without keys is read and removed unsigned). Set exactly one of `local`, `s3` and `image`.",
		Attributes: attrs,
		Validators: []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("bucket"))},
		// Adding or removing the block replaces; inside it, each attribute says.
		PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(func(_ context.Context,
			req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = req.StateValue.IsNull() != req.PlanValue.IsNull()
		}, "Adding or removing the block replaces the snapshot.", "Adding or removing the block replaces the snapshot.")},
	}
}

// sameObject reports whether o names the same service and bucket prefix
// (else the snapshot is replaced anyway).
func (s *snapshotS3Model) sameObject(o *snapshotS3Model) bool {
	return s.Bucket.Equal(o.Bucket) && s.Prefix.Equal(o.Prefix) && s.EndpointURL.Equal(o.EndpointURL) && s.Region.Equal(o.Region)
}

// target is the bucket the block names.
func (s *snapshotS3Model) target() workspace.S3Target {
	return workspace.S3Target{Endpoint: s.EndpointURL.ValueString(), Region: s.Region.ValueString(),
		Bucket: s.Bucket.ValueString(), Prefix: s.Prefix.ValueString()}
}

// createS3 takes the snapshot into the bucket and records it in m.
func (r *snapshotResource) createS3(ctx context.Context, ws *workspace.Workspace, req workspace.SnapshotRequest, cfg tfsdk.Config,
	m *snapshotResourceModel, private privateSetter, diags *diag.Diagnostics) {
	creds, ok := s3Credentials(ctx, &cfg, path.Root("s3"), diags)
	if !ok {
		return
	}
	t := m.S3.target()
	t.Credentials = creds
	res, err := ws.SnapshotS3(ctx, t, req)
	if err != nil {
		diags.AddError("Snapshot failed", snapshotFailure(err))
		return
	}
	m.URL, m.Path = types.StringValue(res.Location.URL()), types.StringNull()
	m.setSummary(res.Summary)
	warnExcluded(res.Excluded, diags)
	b, _ := json.Marshal(privateS3Object{ETag: res.ETag, Signed: creds.Set()})
	diags.Append(private.SetKey(ctx, privateS3Key, b)...)
	r.writeS3Index(ctx, t, res, *m, diags)
}

func readPrivateS3(ctx context.Context, p privateGetter, diags *diag.Diagnostics) privateS3Object {
	var o privateS3Object
	b, d := p.GetKey(ctx, privateS3Key)
	diags.Append(d...)
	if len(b) > 0 {
		_ = json.Unmarshal(b, &o)
	}
	return o
}

// s3Drifted HEADs the object: true when it is missing or its ETag or size
// differs from what the upload recorded. ok is false when it could not be
// checked (no keys for a signed upload).
func (r *snapshotResource) s3Drifted(ctx context.Context, m snapshotResourceModel, creds s3store.Credentials, rec privateS3Object) (drifted, ok bool, err error) {
	if rec.Signed && !creds.Set() {
		return false, false, nil
	}
	if !rec.Signed {
		creds = s3store.Credentials{}
	}
	loc, err := m.s3Location()
	if err != nil {
		return false, false, err
	}
	st, err := r.eng.ReadObject(ctx, loc, creds)
	if err != nil {
		return false, false, err
	}
	return !st.Exists || st.Size != m.Size.ValueInt64() || (rec.ETag != "" && st.ETag != rec.ETag), true, nil
}

// s3Location is the recorded object.
func (m snapshotResourceModel) s3Location() (s3store.Location, error) {
	bucket, key, err := s3store.ParseURL(m.URL.ValueString())
	if err != nil {
		return s3store.Location{}, err
	}
	return s3store.Location{Endpoint: m.S3.EndpointURL.ValueString(), Region: m.S3.Region.ValueString(), Bucket: bucket, Key: key}, nil
}

// readS3 is refresh: a HEAD with the environment's keys; a missing or
// altered object leaves state. Without keys for a signed upload the
// check waits for the plan, which has the write-only keys.
func (r *snapshotResource) readS3(ctx context.Context, m snapshotResourceModel, req resource.ReadRequest, resp *resource.ReadResponse) {
	rec := readPrivateS3(ctx, req.Private, &resp.Diagnostics)
	creds, _ := s3store.EnvCredentials()
	drifted, ok, err := r.s3Drifted(ctx, m, creds, rec)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Cannot read the snapshot object", err.Error())
	case ok && drifted:
		resp.State.RemoveResource(ctx)
	}
}

// ModifyPlan replaces an S3 snapshot whose object is missing or altered,
// checked with the configured write-only keys (a refresh may have had
// none).
func (r *snapshotResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var state, plan snapshotResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// path belongs to local, url to s3, image_id to image: the others are
	// known to be null (also for a snapshot in state from before they
	// existed).
	if plan.nullOtherTargets() {
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	}
	if req.State.Raw.IsNull() {
		return
	}
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || state.S3 == nil || plan.S3 == nil || plan.SHA256.IsUnknown() || !plan.S3.sameObject(state.S3) {
		return
	}
	creds, ok := s3Credentials(ctx, &req.Config, path.Root("s3"), &resp.Diagnostics)
	if !ok {
		return
	}
	drifted, ok, err := r.s3Drifted(ctx, state, creds, readPrivateS3(ctx, req.Private, &resp.Diagnostics))
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the snapshot object", err.Error())
		return
	}
	if !ok || !drifted {
		return
	}
	unknown := types.StringUnknown()
	plan.ID, plan.SnapshotID, plan.URL, plan.SHA256, plan.Fingerprint = unknown, unknown, unknown, unknown, unknown
	plan.Size, plan.FileCount, plan.Files = types.Int64Unknown(), types.Int64Unknown(), types.MapUnknown(types.StringType)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("sha256"))
}

// deleteS3 removes the object if it is still the one uploaded.
func (r *snapshotResource) deleteS3(ctx context.Context, m snapshotResourceModel, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	rec := readPrivateS3(ctx, req.Private, &resp.Diagnostics)
	creds, ok := s3store.EnvCredentials()
	if rec.Signed && !ok {
		resp.Diagnostics.AddWarning("Snapshot object left in place", m.URL.ValueString()+": destroy gets no write-only keys from "+
			"Terraform; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the provider to remove it.")
		return
	}
	if !rec.Signed {
		creds = s3store.Credentials{}
	}
	loc, err := m.s3Location()
	if err == nil {
		err = r.eng.RemoveObject(ctx, loc, creds, rec.ETag, m.Size.ValueInt64())
		r.removeS3Index(ctx, loc, creds, m, &resp.Diagnostics)
	}
	switch {
	case errors.Is(err, workspace.ErrArchiveChanged):
		resp.Diagnostics.AddWarning("Snapshot object left in place", err.Error())
	case err != nil:
		resp.Diagnostics.AddError("Cannot remove the snapshot object", err.Error())
	}
}

// s3PrefixValidator refuses a prefix with a ".." segment.
type s3PrefixValidator struct{}

func (s3PrefixValidator) Description(context.Context) string { return "must not hold a `..` segment" }

func (v s3PrefixValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (s3PrefixValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, seg := range strings.Split(req.ConfigValue.ValueString(), "/") {
		if seg == ".." {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid prefix", "prefix must not hold a .. segment")
			return
		}
	}
}

// nullOtherTargets sets the unknown computed attributes of the targets
// not configured to null; true when it changed one.
func (m *snapshotResourceModel) nullOtherTargets() bool {
	changed := false
	null := func(v *types.String, mine bool) {
		if !mine && v.IsUnknown() {
			*v, changed = types.StringNull(), true
		}
	}
	null(&m.Path, m.Local != nil)
	null(&m.URL, m.S3 != nil)
	null(&m.ImageID, m.Image != nil)
	null(&m.SHA256, m.Image == nil)
	null(&m.Fingerprint, m.Image == nil)
	if m.Image != nil && m.Files.IsUnknown() {
		m.Files, changed = types.MapNull(types.StringType), true
	}
	return changed
}
