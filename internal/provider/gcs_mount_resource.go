package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// gcsMountType is sandbox_gcs_mount: the Python SDK's GCSMount (design/sdk-model.md §5.4).
var gcsMountType = registerMountType(mountType{
	typ: mount.TypeGCS,
	summary: "A Google Cloud Storage bucket mounted into a workspace: the Python SDK's `GCSMount`. With both `access_id_wo` and " +
		"`secret_access_key_wo` (HMAC keys) rclone uses GCS through its S3 API (remote kind `gcs_s3`); otherwise the " +
		"native backend, anonymous unless a service account or access token is given.",
	fields: []mountField{
		{name: "bucket", required: true, desc: "Bucket name."},
		{name: "access_id", secret: true, desc: "HMAC access id; set it together with `secret_access_key_wo`."},
		{name: "secret_access_key", secret: true, desc: "HMAC secret; set it together with `access_id_wo`."},
		{name: "prefix", desc: "Object prefix inside the bucket."},
		{name: "region", desc: "Region (HMAC mode)."},
		{name: "endpoint_url", desc: "Endpoint; default `https://storage.googleapis.com` (HMAC mode and mount-s3)."},
		{name: "service_account_file", desc: "Path of a service account JSON file that already exists in the sandbox " +
			"image (absolute, outside the workspace root: files the workspace could hold are refused)."},
		{name: "service_account_credentials", secret: true, desc: "Service account JSON."},
		{name: "access_token", secret: true, desc: "OAuth access token."},
	},
	build: func(m *mount.Mount, v mountValues, _ []mount.Option) {
		m.GCS = &mount.GCS{Bucket: v.str("bucket"), AccessID: v["access_id"], SecretAccessKey: v["secret_access_key"],
			Prefix: v["prefix"], Region: v["region"], EndpointURL: v["endpoint_url"], ServiceAccountFile: v["service_account_file"],
			ServiceAccountCredentials: v["service_account_credentials"], AccessToken: v["access_token"]}
	},
})

// NewGCSMountResource returns the sandbox_gcs_mount resource.
func NewGCSMountResource() resource.Resource { return &mountResource{kind: gcsMountType} }
