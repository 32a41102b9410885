package provider

import (
	"context"
	"encoding/base64"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// planDigest computes the digest of the configured content when it is
// known at plan time. ok is false when it is not (unknown values, or
// write-only content whose digests are never recorded).
func planDigest(ctx context.Context, eng *workspace.Engine, m fileModel) (d sandbox.FileDigest, ok bool, attr string, err error) {
	switch {
	case !m.Content.IsNull():
		if m.Content.IsUnknown() {
			return d, false, "", nil
		}
		return sandbox.DigestBytes([]byte(m.Content.ValueString())), true, "", nil
	case !m.ContentBase64.IsNull():
		if m.ContentBase64.IsUnknown() {
			return d, false, "", nil
		}
		b, err := base64.StdEncoding.DecodeString(m.ContentBase64.ValueString())
		if err != nil {
			return d, false, "content_base64", err
		}
		return sandbox.DigestBytes(b), true, "", nil
	case !m.Source.IsNull():
		if m.Source.IsUnknown() {
			return d, false, "", nil
		}
		_, d, err := eng.HostSources().DigestFile(ctx, m.Source.ValueString())
		if err != nil {
			return d, false, "source", err
		}
		return d, true, "", nil
	}
	return d, false, "", nil
}

func (m *fileModel) setDigest(d sandbox.FileDigest) {
	m.Size = types.Int64Value(d.Size)
	m.ContentMD5 = types.StringValue(d.MD5)
	m.ContentSHA1 = types.StringValue(d.SHA1)
	m.ContentSHA256 = types.StringValue(d.SHA256)
	m.ContentBase64SHA256 = types.StringValue(d.Base64SHA256)
	m.ContentSHA512 = types.StringValue(d.SHA512)
	m.ContentBase64SHA512 = types.StringValue(d.Base64SHA512)
}

// digest returns the planned digest held in the model.
func (m *fileModel) digest() sandbox.FileDigest {
	return sandbox.FileDigest{
		Size: m.Size.ValueInt64(), MD5: m.ContentMD5.ValueString(), SHA1: m.ContentSHA1.ValueString(),
		SHA256: m.ContentSHA256.ValueString(), Base64SHA256: m.ContentBase64SHA256.ValueString(),
		SHA512: m.ContentSHA512.ValueString(), Base64SHA512: m.ContentBase64SHA512.ValueString(),
	}
}

func (m *fileModel) setDigestNull() {
	m.Size = types.Int64Null()
	m.ContentMD5 = types.StringNull()
	m.ContentSHA1 = types.StringNull()
	m.ContentSHA256 = types.StringNull()
	m.ContentBase64SHA256 = types.StringNull()
	m.ContentSHA512 = types.StringNull()
	m.ContentBase64SHA512 = types.StringNull()
}

func (m *fileModel) setDigestUnknown() {
	m.Size = types.Int64Unknown()
	m.ContentMD5 = types.StringUnknown()
	m.ContentSHA1 = types.StringUnknown()
	m.ContentSHA256 = types.StringUnknown()
	m.ContentBase64SHA256 = types.StringUnknown()
	m.ContentSHA512 = types.StringUnknown()
	m.ContentBase64SHA512 = types.StringUnknown()
}
