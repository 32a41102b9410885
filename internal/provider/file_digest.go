package provider

import (
	"context"
	"encoding/base64"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// planDigest computes the digest of the configured content when it is
// known at plan time. ok is false when it is not (unknown values, or
// write-only content whose digests are never recorded).
func planDigest(ctx context.Context, eng *workspace.Engine, m fileModel) (d checksum.FileDigest, ok bool, attr string, err error) {
	want := m.checksumSet()
	switch {
	case !m.Content.IsNull():
		if m.Content.IsUnknown() {
			return d, false, "", nil
		}
		return checksum.DigestBytesWith([]byte(m.Content.ValueString()), want), true, "", nil
	case !m.ContentBase64.IsNull():
		if m.ContentBase64.IsUnknown() {
			return d, false, "", nil
		}
		b, err := base64.StdEncoding.DecodeString(m.ContentBase64.ValueString())
		if err != nil {
			return d, false, "content_base64", err
		}
		return checksum.DigestBytesWith(b, want), true, "", nil
	case !m.Source.IsNull():
		if m.Source.IsUnknown() {
			return d, false, "", nil
		}
		_, d, err := eng.HostSources().DigestFileWith(ctx, m.Source.ValueString(), want)
		if err != nil {
			return d, false, "source", err
		}
		return d, true, "", nil
	}
	return d, false, "", nil
}

// checksumNames maps the values of `checksums` to the digests they add.
var checksumNames = map[string]checksum.DigestSet{"md5": checksum.DigestMD5, "sha1": checksum.DigestSHA1, "sha512": checksum.DigestSHA512}

// checksumSet is the set `checksums` asks for (none when null or unknown).
func (m *fileModel) checksumSet() checksum.DigestSet {
	var set checksum.DigestSet
	for _, e := range m.Checksums.Elements() {
		if s, ok := e.(types.String); ok {
			set |= checksumNames[s.ValueString()]
		}
	}
	return set
}

// optional is v when the digest is asked for, unknown while `checksums`
// is, else null.
func (m *fileModel) optional(d checksum.DigestSet, v types.String) types.String {
	switch {
	case m.Checksums.IsUnknown():
		return types.StringUnknown()
	case m.checksumSet()&d == 0:
		return types.StringNull()
	}
	return v
}

// setDigest records d: SHA-256 always, the digests `checksums` asks for,
// null for the others.
func (m *fileModel) setDigest(d checksum.FileDigest) {
	m.Size = types.Int64Value(d.Size)
	m.ContentSHA256 = types.StringValue(d.SHA256)
	m.ContentBase64SHA256 = types.StringValue(d.Base64SHA256)
	m.ContentMD5 = m.optional(checksum.DigestMD5, types.StringValue(d.MD5))
	m.ContentSHA1 = m.optional(checksum.DigestSHA1, types.StringValue(d.SHA1))
	m.ContentSHA512 = m.optional(checksum.DigestSHA512, types.StringValue(d.SHA512))
	m.ContentBase64SHA512 = m.optional(checksum.DigestSHA512, types.StringValue(d.Base64SHA512))
}

// digest returns the planned digest held in the model.
func (m *fileModel) digest() checksum.FileDigest {
	return checksum.FileDigest{
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

// setDigestUnknown leaves the digests to the apply; those not asked for
// are null already.
func (m *fileModel) setDigestUnknown() {
	m.Size = types.Int64Unknown()
	m.ContentSHA256 = types.StringUnknown()
	m.ContentBase64SHA256 = types.StringUnknown()
	m.ContentMD5 = m.optional(checksum.DigestMD5, types.StringUnknown())
	m.ContentSHA1 = m.optional(checksum.DigestSHA1, types.StringUnknown())
	m.ContentSHA512 = m.optional(checksum.DigestSHA512, types.StringUnknown())
	m.ContentBase64SHA512 = m.optional(checksum.DigestSHA512, types.StringUnknown())
}
