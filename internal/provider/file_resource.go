package provider

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure        = (*fileResource)(nil)
	_ resource.ResourceWithImportState      = (*fileResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*fileResource)(nil)
	_ resource.ResourceWithConfigValidators = (*fileResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*fileResource)(nil)
)

// NewFileResource returns the sandbox_file resource: the Python SDK's File entry
// (inline content) and LocalFile entry (a host source).
func NewFileResource() resource.Resource { return &fileResource{} }

type fileResource struct {
	eng *workspace.Engine
}

type fileModel struct {
	entryModel
	Content             types.String `tfsdk:"content"`
	ContentBase64       types.String `tfsdk:"content_base64"`
	Source              types.String `tfsdk:"source"`
	ContentWO           types.String `tfsdk:"content_wo"`
	ContentWOVersion    types.Int64  `tfsdk:"content_wo_version"`
	Size                types.Int64  `tfsdk:"size"`
	ContentMD5          types.String `tfsdk:"content_md5"`
	ContentSHA1         types.String `tfsdk:"content_sha1"`
	ContentSHA256       types.String `tfsdk:"content_sha256"`
	ContentBase64SHA256 types.String `tfsdk:"content_base64sha256"`
	ContentSHA512       types.String `tfsdk:"content_sha512"`
	ContentBase64SHA512 types.String `tfsdk:"content_base64sha512"`
}

func (r *fileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_file"
}

func (r *fileResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := entryAttributes("file")
	filePath, _ := attrs["path"].(schema.StringAttribute) // entryAttributes makes it a string
	filePath.Validators = append(filePath.Validators, filePathValidator)
	filePath.MarkdownDescription += " A path ending with a separator (`x/`) names a directory and is refused."
	attrs["path"] = filePath
	digest := func(what string) schema.StringAttribute {
		return schema.StringAttribute{
			Computed: true,
			MarkdownDescription: what + " of the content, known at plan time whenever the content is (host sources included). " +
				"Null for `content_wo`, whose digests are never recorded.",
		}
	}
	attrs["content"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "UTF-8 text to write, the Python SDK's `File.content`. Exactly one of `content`, `content_base64`, `source` " +
			"and `content_wo` is required.",
	}
	attrs["content_base64"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "Binary content as standard base64 (padded). Invalid base64 is a plan-time error.",
	}
	attrs["source"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Host file to copy, the Python SDK's `LocalFile.src`: relative to Terraform's working directory, " +
			"and must lie under it or under a provider `extra_path_grants` entry (else reason `outside_base_dir`). A symlink " +
			"anywhere on the path is refused (`symlink_not_supported`, naming the component). The file is hashed at plan time; " +
			"if it changes before apply, the apply fails and nothing is written.",
	}
	attrs["content_wo"] = schema.StringAttribute{
		Optional:  true,
		WriteOnly: true,
		Sensitive: true,
		MarkdownDescription: "Secret content: a write-only attribute (Terraform 1.11 or later) that never lands in state or plan " +
			"output. Its digests stay null, so a change to it is applied only when `content_wo_version` changes; a deleted file, " +
			"mode or group is still detected and restored.",
	}
	attrs["content_wo_version"] = schema.Int64Attribute{
		Optional:            true,
		MarkdownDescription: "Any number; change it to rewrite the file with the current `content_wo` (rotation).",
	}
	attrs["manifest_entry"] = sensitiveManifestEntryAttribute("`{\"type\": \"file\", ..., \"content\": <text>}` or, " +
		"for a `source`, `{\"type\": \"local_file\", ..., \"src\": <source>}`")
	attrs["size"] = schema.Int64Attribute{
		Computed:            true,
		MarkdownDescription: "Content size in bytes, known at plan time whenever the content is. Null for `content_wo`.",
	}
	attrs["content_md5"] = digest("Hex MD5 (as `filemd5()`)")
	attrs["content_sha1"] = digest("Hex SHA-1 (as `filesha1()`)")
	attrs["content_sha256"] = digest("Hex SHA-256 (as `filesha256()`)")
	attrs["content_base64sha256"] = digest("Base64 SHA-256 (as `filebase64sha256()`)")
	attrs["content_sha512"] = digest("Hex SHA-512 (as `filesha512()`)")
	attrs["content_base64sha512"] = digest("Base64 SHA-512 (as `filebase64sha512()`)")
	resp.Schema = schema.Schema{
		MarkdownDescription: "A file in a workspace: the Python SDK's `File` entry (inline content) or `LocalFile` entry (a host " +
			"`source`), written atomically (a temporary file renamed into place) and streamed, then chgrp and chmod. Content, " +
			"mode or group changed out of band show in the next plan as an update that restores them; a deleted file is " +
			"planned for creation. Import ID: `<workspace_id>/<path>`.",
		Attributes: attrs,
	}
}

func (r *fileResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *fileResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(
			path.MatchRoot("content"), path.MatchRoot("content_base64"),
			path.MatchRoot("source"), path.MatchRoot("content_wo"),
		),
	}
}

func (r *fileResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m fileModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.ContentBase64.IsNull() && !m.ContentBase64.IsUnknown() {
		if _, err := base64.StdEncoding.DecodeString(m.ContentBase64.ValueString()); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("content_base64"), "Invalid base64 content",
				"content_base64 must be standard base64 (RFC 4648 with padding): "+err.Error())
		}
	}
	if !m.ContentWOVersion.IsNull() && m.ContentWO.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("content_wo_version"), "content_wo_version without content_wo",
			"content_wo_version only triggers rewriting content_wo; set content_wo as well or remove it.")
	}
}

func (r *fileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.eng == nil {
		return
	}
	var m fileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var cfg fileModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if checkEntryPath(ctx, r.eng, req, resp, workspace.KindFile); resp.Diagnostics.HasError() {
		return
	}
	d, ok, attr, err := r.planDigest(ctx, m)
	switch {
	case err != nil:
		addEngineAttributeError(&resp.Diagnostics, path.Root(attr), "Cannot read file content", err)
		return
	case ok:
		m.setDigest(d)
	case !cfg.ContentWO.IsNull():
		m.setDigestNull()
	default:
		m.setDigestUnknown()
	}
	if err := m.setManifestEntry(!cfg.ContentWO.IsNull()); err != nil {
		addEngineError(&resp.Diagnostics, "Cannot render manifest_entry", err)
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

// write materialises the configured content. cfg carries the write-only
// content, which exists only in configuration.
func (r *fileResource) write(ctx context.Context, m *fileModel, cfg fileModel) error {
	rel, err := normalizedPath(m.Path)
	if err != nil {
		return err
	}
	meta, err := m.meta()
	if err != nil {
		return err
	}
	ws := m.WorkspaceID.ValueString()
	want := ""
	if !m.ContentSHA256.IsNull() && !m.ContentSHA256.IsUnknown() {
		want = m.ContentSHA256.ValueString()
	}
	var (
		res sandbox.FileDigest
		abs string
	)
	if !m.Source.IsNull() {
		var wr backend.WriteResult
		wr, abs, err = r.eng.CopyHostFile(ctx, ws, rel, m.Source.ValueString(), meta, want)
		if err != nil {
			return err
		}
		if want == "" {
			// Unknown at plan time: digest what was copied.
			if _, res, err = r.eng.HostSources().DigestFile(ctx, m.Source.ValueString()); err != nil {
				return err
			}
			if res.SHA256 != wr.SHA256 {
				return errContentChangedSincePlan(rel)
			}
		} else {
			res = m.digest()
		}
	} else {
		var body []byte
		switch {
		case !m.Content.IsNull():
			body = []byte(m.Content.ValueString())
		case !m.ContentBase64.IsNull():
			if body, err = base64.StdEncoding.DecodeString(m.ContentBase64.ValueString()); err != nil {
				return err
			}
		default:
			body = []byte(cfg.ContentWO.ValueString())
		}
		res = sandbox.DigestBytes(body)
		if _, abs, err = r.eng.WriteFile(ctx, ws, rel, io.Reader(bytes.NewReader(body)), meta, ""); err != nil {
			return err
		}
	}
	if cfg.ContentWO.IsNull() {
		if want != "" && res.SHA256 != want {
			return errContentChangedSincePlan(rel)
		}
		m.setDigest(res)
	} else {
		m.setDigestNull()
	}
	m.ID = types.StringValue(entryID(ws, rel))
	m.AbsolutePath = types.StringValue(abs)
	m.ContentWO = types.StringNull()
	return nil
}

func (r *fileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m, cfg fileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.write(ctx, &m, cfg); err != nil {
		addEngineError(&resp.Diagnostics, "Writing file "+m.Path.ValueString()+" failed", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *fileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m fileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rel, err := normalizedPath(m.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	// Only content whose digest is in state is compared: never hash a file
	// whose content is a write-only secret (or unknown, after an import),
	// so no digest of a secret ever reaches state or plan output.
	tracked := !m.ContentSHA256.IsNull() && (!m.Content.IsNull() || !m.ContentBase64.IsNull() || !m.Source.IsNull())
	st, err := r.eng.Stat(ctx, m.WorkspaceID.ValueString(), rel, tracked)
	if workspaceGone(err) || (err == nil && (!st.Exists || !st.Info.IsRegular)) {
		// Gone, or something else stands there now (the plan then names it).
		resp.State.RemoveResource(ctx)
		return
	}
	if workspaceStopped(err) {
		return // nothing can be read in a stopped container: state stays as it was
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Reading file "+rel+" failed", err)
		return
	}
	m.observeMeta(st)
	if m.Ephemeral.IsNull() {
		m.Ephemeral = types.BoolValue(false)
	}
	if tracked && m.ContentSHA256.ValueString() != st.SHA256 {
		// Content changed out of band: record what is there, so the plan
		// shows an update restoring it.
		m.Size = types.Int64Value(st.Size)
		m.ContentSHA256 = types.StringValue(st.SHA256)
	}
	if w, err := r.eng.Open(ctx, m.WorkspaceID.ValueString()); err == nil {
		m.AbsolutePath = types.StringValue(w.AbsPath(rel))
	}
	if !m.Content.IsNull() || !m.ContentBase64.IsNull() || !m.Source.IsNull() {
		_ = m.setManifestEntry(false) // inputs come from state (write-only content keeps its rendering)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *fileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, cfg, prior fileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rewrite := !m.ContentSHA256.Equal(prior.ContentSHA256) || m.ContentSHA256.IsUnknown() ||
		!m.ContentWOVersion.Equal(prior.ContentWOVersion) || !m.Source.Equal(prior.Source)
	if rewrite {
		if err := r.write(ctx, &m, cfg); err != nil {
			addEngineError(&resp.Diagnostics, "Writing file "+m.Path.ValueString()+" failed", err)
			return
		}
	} else {
		rel, err := normalizedPath(m.Path)
		if err == nil {
			var meta workspace.Meta
			if meta, err = m.meta(); err == nil {
				err = r.eng.ApplyMeta(ctx, m.WorkspaceID.ValueString(), rel, meta)
			}
		}
		if err != nil {
			addEngineError(&resp.Diagnostics, "Updating file "+m.Path.ValueString()+" failed", err)
			return
		}
		m.ContentWO = types.StringNull()
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *fileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m fileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rel, err := normalizedPath(m.Path)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Invalid path in state", err)
		return
	}
	if err := r.eng.RemoveFile(ctx, m.WorkspaceID.ValueString(), rel); err != nil {
		addEngineError(&resp.Diagnostics, "Removing file "+rel+" failed", err)
	}
}

func (r *fileResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importEntry(ctx, req, resp)
}

func errContentChangedSincePlan(rel string) error {
	return fmt.Errorf("the content of %s changed between plan and apply; run terraform plan again", rel)
}
