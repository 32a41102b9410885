package provider

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/hashicorp/terraform-plugin-framework-validators/helpers/validatordiag"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// NewFileResource returns the sandbox_file resource: the Python SDK's File entry
// (inline content) and LocalFile entry (a host source).
func NewFileResource() resource.Resource {
	return &entryResource[fileModel, *fileModel]{k: fileEntry{}}
}

// fileEntry is sandbox_file: content written atomically, then chgrp and
// chmod; digests known at plan time whenever the content is.
type fileEntry struct{}

func (fileEntry) typeName() string          { return "file" }
func (fileEntry) makes() workspace.PathType { return workspace.PathFile }

type fileModel struct {
	entryModel
	Content             types.String `tfsdk:"content"`
	ContentBase64       types.String `tfsdk:"content_base64"`
	Source              types.String `tfsdk:"source"`
	ContentWO           types.String `tfsdk:"content_wo"`
	ContentWOVersion    types.Int64  `tfsdk:"content_wo_version"`
	Checksums           types.Set    `tfsdk:"checksums"`
	Size                types.Int64  `tfsdk:"size"`
	ContentMD5          types.String `tfsdk:"content_md5"`
	ContentSHA1         types.String `tfsdk:"content_sha1"`
	ContentSHA256       types.String `tfsdk:"content_sha256"`
	ContentBase64SHA256 types.String `tfsdk:"content_base64sha256"`
	ContentSHA512       types.String `tfsdk:"content_sha512"`
	ContentBase64SHA512 types.String `tfsdk:"content_base64sha512"`
}

func (fileEntry) schema() schema.Schema {
	attrs := entryAttributes("file")
	filePath, _ := attrs["path"].(schema.StringAttribute) // entryAttributes makes it a string
	filePath.Validators = append(filePath.Validators, filePathValidator)
	filePath.MarkdownDescription += " A path ending with a separator (`x/`) names a directory and is refused."
	attrs["path"] = filePath
	digest := func(what, asked string) schema.StringAttribute {
		d := what + " of the content, known at plan time whenever the content is (host sources included). " +
			"Null for `content_wo`, whose digests are never recorded."
		if asked != "" {
			d += " Null unless `checksums` holds `\"" + asked + "\"`."
		}
		return schema.StringAttribute{Computed: true, MarkdownDescription: d}
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
	attrs["checksums"] = schema.SetAttribute{
		ElementType: types.StringType,
		Optional:    true,
		Validators:  []validator.Set{setvalidator.ValueStringsAre(stringvalidator.OneOf("md5", "sha1", "sha512"))},
		MarkdownDescription: "Digests to publish beside SHA-256 (always computed): any of `\"md5\"` (`content_md5`), " +
			"`\"sha1\"` (`content_sha1`) and `\"sha512\"` (`content_sha512`, `content_base64sha512`). Each costs a pass " +
			"over the content at every plan that hashes it, so they are null unless asked for. Adding one later updates " +
			"state without rewriting the file.",
	}
	attrs["content_md5"] = digest("Hex MD5 (as `filemd5()`)", "md5")
	attrs["content_sha1"] = digest("Hex SHA-1 (as `filesha1()`)", "sha1")
	attrs["content_sha256"] = digest("Hex SHA-256 (as `filesha256()`)", "")
	attrs["content_base64sha256"] = digest("Base64 SHA-256 (as `filebase64sha256()`)", "")
	attrs["content_sha512"] = digest("Hex SHA-512 (as `filesha512()`)", "sha512")
	attrs["content_base64sha512"] = digest("Base64 SHA-512 (as `filebase64sha512()`)", "sha512")
	return schema.Schema{
		Version: 1,
		MarkdownDescription: "A file in a workspace: the Python SDK's `File` entry (inline content) or `LocalFile` entry (a host " +
			"`source`), written atomically (a temporary file renamed into place) and streamed, then chgrp and chmod. Content, " +
			"mode or group changed out of band show in the next plan as an update that restores them; a deleted file is " +
			"planned for creation. Import ID: `<workspace_id>/<path>`.",
		Attributes: attrs,
	}
}

// upgraders: version 0 published MD5, SHA-1 and SHA-512 always.
func (fileEntry) upgraders() map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: upgradeFileV0}}
}

// fileContentAttrs are the attributes of which exactly one is required.
var fileContentAttrs = []string{"content", "content_base64", "source", "content_wo"}

// fileContentOneOf is the rule on fileContentAttrs, for its wording.
var fileContentOneOf = resourcevalidator.ExactlyOneOf(
	path.MatchRoot("content"), path.MatchRoot("content_base64"), path.MatchRoot("source"), path.MatchRoot("content_wo"))

// validateRaw checks the configuration from its raw value, reading the
// five attributes it needs: a Get of the whole model (and the path walks
// of resourcevalidator.ExactlyOneOf, whose rule and wording it keeps) cost
// more than the rest of the validation of a sandbox_file.
func (fileEntry) validateRaw(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) {
	attrs := rawAttrs(cfg.Raw)
	var configured []string
	unknown := false
	for _, name := range fileContentAttrs {
		v := attrs[name]
		switch {
		case !v.IsKnown():
			unknown = true
		case !v.IsNull():
			configured = append(configured, name)
		}
	}
	switch {
	case len(configured) > 1:
		diags.Append(validatordiag.InvalidAttributeCombinationDiagnostic(path.Root(configured[0]), fileContentOneOf.Description(ctx)))
	case len(configured) == 0 && !unknown:
		diags.AddError("Missing Attribute Configuration", fileContentOneOf.Description(ctx))
	}
	if b64, ok := rawString(attrs["content_base64"]); ok {
		if _, err := base64.StdEncoding.DecodeString(b64); err != nil {
			diags.AddAttributeError(path.Root("content_base64"), "Invalid base64 content",
				"content_base64 must be standard base64 (RFC 4648 with padding): "+err.Error())
		}
	}
	if v := attrs["content_wo_version"]; !v.IsNull() && attrs["content_wo"].IsNull() {
		diags.AddAttributeError(path.Root("content_wo_version"), "content_wo_version without content_wo",
			"content_wo_version only triggers rewriting content_wo; set content_wo as well or remove it.")
	}
}

func (fileEntry) render(m, cfg *fileModel) error {
	if cfg != nil {
		return m.setManifestEntry(!cfg.ContentWO.IsNull())
	}
	if m.Content.IsNull() && m.ContentBase64.IsNull() && m.Source.IsNull() {
		return nil // write-only content keeps its rendering
	}
	return m.setManifestEntry(false)
}

// static: a file's plan reads nothing outside its configuration unless it
// copies a host source, which the plan hashes again to show its edits, or
// Read recorded content changed out of band (a content_sha256 that is not
// the configured content's), which the plan must show as an update. It
// reads the raw plan: four GetAttribute calls cost a schema walk each.
func (fileEntry) static(_ context.Context, plan tfsdk.Plan) bool {
	attrs := rawAttrs(plan.Raw)
	if attrs == nil || !attrs["source"].IsNull() {
		return false
	}
	content, isText := rawString(attrs["content"])
	b64, isB64 := rawString(attrs["content_base64"])
	sum, _ := rawString(attrs["content_sha256"])
	body := []byte(content)
	switch {
	case isB64:
		var err error
		if body, err = base64.StdEncoding.DecodeString(b64); err != nil {
			return false
		}
	case !isText:
		if !attrs["content"].IsKnown() || !attrs["content_base64"].IsKnown() {
			return false
		}
		return true // write-only content: no digest is tracked
	}
	d := sha256.Sum256(body)
	return sum == hex.EncodeToString(d[:])
}

func (fileEntry) plan(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m, cfg *fileModel) {
	d, ok, attr, err := planDigest(ctx, eng, *m)
	var prior fileModel
	switch {
	case err != nil && attr == "source" && keepGoneSource(ctx, req, m.Source, &prior, err, &resp.Diagnostics):
		m.setDigest(prior.digest())
	case err != nil:
		addEngineAttributeError(&resp.Diagnostics, path.Root(attr), "Cannot read file content", err)
	case ok:
		m.setDigest(d)
	case !cfg.ContentWO.IsNull():
		m.setDigestNull()
	default:
		m.setDigestUnknown()
	}
}

// apply writes the content when it is new or changed (or the write-only
// content's version moved), else only re-applies the metadata.
func (fileEntry) apply(ctx context.Context, a entryApply[*fileModel], diags *diag.Diagnostics) {
	m, prior := a.m, a.prior
	if prior != nil && m.ContentSHA256.Equal(prior.ContentSHA256) && !m.ContentSHA256.IsUnknown() &&
		m.ContentWOVersion.Equal(prior.ContentWOVersion) && m.Source.Equal(prior.Source) {
		if err := a.ws.ApplyMeta(ctx, a.rel, a.meta); err != nil {
			addEngineError(diags, "Updating file "+a.rel+" failed", err)
		}
		m.ContentWO = types.StringNull()
		return
	}
	if err := write(ctx, a); err != nil {
		addEngineError(diags, "Writing file "+a.rel+" failed", err)
	}
}

// write materialises the configured content. a.cfg carries the write-only
// content, which exists only in configuration.
func write(ctx context.Context, a entryApply[*fileModel]) error {
	m, cfg := a.m, a.cfg
	want := ""
	if !m.ContentSHA256.IsNull() && !m.ContentSHA256.IsUnknown() {
		want = m.ContentSHA256.ValueString()
	}
	var res checksum.FileDigest
	if !m.Source.IsNull() {
		wr, err := a.ws.CopyHostFile(ctx, a.rel, m.Source.ValueString(), a.meta, want)
		if err != nil {
			return err
		}
		if want == "" {
			// Unknown at plan time: digest what was copied.
			if _, res, err = a.eng.HostSources().DigestFileWith(ctx, m.Source.ValueString(), m.checksumSet()); err != nil {
				return err
			}
			if res.SHA256 != wr.SHA256 {
				return errContentChangedSincePlan(a.rel)
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
			var err error
			if body, err = base64.StdEncoding.DecodeString(m.ContentBase64.ValueString()); err != nil {
				return err
			}
		default:
			body = []byte(cfg.ContentWO.ValueString())
		}
		res = checksum.DigestBytesWith(body, m.checksumSet())
		if _, err := a.ws.WriteFile(ctx, a.rel, bytes.NewReader(body), a.meta, ""); err != nil {
			return err
		}
	}
	if cfg.ContentWO.IsNull() {
		if want != "" && res.SHA256 != want {
			return errContentChangedSincePlan(a.rel)
		}
		m.setDigest(res)
	} else {
		m.setDigestNull()
	}
	m.ContentWO = types.StringNull()
	return nil
}

// observe reads the file's metadata and, when its digest is in state, its
// content's digest. Never hash a file whose content is a write-only secret
// (or unknown, after an import), so no digest of a secret ever reaches
// state or plan output.
func (fileEntry) observe(ctx context.Context, ws *workspace.Workspace, m *fileModel, rel string) (workspace.EntryState, error) {
	tracked := !m.ContentSHA256.IsNull() && (!m.Content.IsNull() || !m.ContentBase64.IsNull() || !m.Source.IsNull())
	st, err := ws.Stat(ctx, rel, tracked)
	if err == nil && tracked && st.Info.IsRegular && m.ContentSHA256.ValueString() != st.SHA256 {
		// Content changed out of band: record what is there, so the plan
		// shows an update restoring it.
		m.Size = types.Int64Value(st.Size)
		m.ContentSHA256 = types.StringValue(st.SHA256)
	}
	return st, err
}

func (fileEntry) remove(ctx context.Context, ws *workspace.Workspace, _ *fileModel, rel string, _ privateGetter) (string, error) {
	return "", ws.RemoveFile(ctx, rel)
}

func errContentChangedSincePlan(rel string) error {
	return fmt.Errorf("the content of %s changed between plan and apply: %w", rel, workspace.ErrSourceChanged)
}
