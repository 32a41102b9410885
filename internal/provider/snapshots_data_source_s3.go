package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/s3store"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// snapshotsS3Model is the s3 block: the bucket and prefix searched.
type snapshotsS3Model struct {
	Bucket      types.String `tfsdk:"bucket"`
	Prefix      types.String `tfsdk:"prefix"`
	EndpointURL types.String `tfsdk:"endpoint_url"`
	Region      types.String `tfsdk:"region"`
}

func snapshotsS3Block() schema.SingleNestedBlock {
	str := func(desc string, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: append(v, noLineBreaks{})}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "Look below an S3 prefix (`sandbox_snapshot`'s `s3` block), signed with the provider's " +
			"`AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`) when set, else unsigned: a data " +
			"source takes no write-only keys. At most 1000 indexes are read. Whoever can write below the prefix can plant a " +
			"match: never mount it writable into a workspace.",
		Attributes: map[string]schema.Attribute{
			"bucket":       str("Bucket name. Required in the block.", stringvalidator.LengthAtLeast(1)),
			"prefix":       str("Key prefix the snapshots were taken to. Default: the bucket's top level.", s3PrefixValidator{}),
			"endpoint_url": str("S3-compatible endpoint (`http(s)://host[:port]`). Default: AWS."),
			"region":       str("Signing region. Default: `us-east-1`."),
		},
		Validators: []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("bucket"))},
	}
}

// findS3 lists the matching archives below the s3 block's prefix.
func (d *snapshotsDataSource) findS3(ctx context.Context, m snapshotsModel, diags *diag.Diagnostics) []attr.Value {
	creds, _ := s3store.EnvCredentials()
	t := workspace.S3Target{Endpoint: m.S3.EndpointURL.ValueString(), Region: m.S3.Region.ValueString(),
		Bucket: m.S3.Bucket.ValueString(), Prefix: m.S3.Prefix.ValueString(), Credentials: creds}
	if err := s3store.CheckEndpoint(t.Endpoint); err != nil {
		diags.AddAttributeError(path.Root("s3").AtName("endpoint_url"), "Invalid endpoint_url", err.Error())
		return nil
	}
	found, skipped, err := d.eng.FindS3Snapshots(ctx, t, m.InputsSHA256.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("s3"), "Cannot list the snapshots", err.Error())
		return nil
	}
	if len(skipped) > 0 {
		diags.AddWarning("Snapshot indexes skipped", strings.Join(skipped, "\n"))
	}
	vals := make([]attr.Value, 0, len(found))
	for _, f := range found {
		vals = append(vals, foundArchive(f.SnapshotIndex, types.StringNull(), types.StringValue(f.Location.URL())))
	}
	return vals
}

// foundArchive is one found archive: at a host path or an s3:// URL.
func foundArchive(ix workspace.SnapshotIndex, hostPath, url types.String) attr.Value {
	return types.ObjectValueMust(foundSnapshotType, map[string]attr.Value{
		"snapshot_id": types.StringValue(ix.SnapshotID), "path": hostPath, "url": url,
		"sha256": types.StringValue(ix.SHA256), "size": types.Int64Value(ix.Size), "inputs_sha256": types.StringValue(ix.InputsSHA256),
		"image_id": types.StringNull(), "image": types.StringNull(),
	})
}
