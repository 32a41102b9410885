package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// s3MountType is sandbox_s3_mount: the Python SDK's S3Mount (design/sdk-model.md §5.4).
var s3MountType = registerMountType(mountType{
	typ: mount.TypeS3,
	summary: "An Amazon S3 (or S3-compatible) bucket mounted into a workspace: the Python SDK's `S3Mount`. Without both keys the " +
		"mount is credentialless (rclone `env_auth = false` with no keys; mount-s3 `--no-sign-request`).",
	fields: []mountField{
		{name: "bucket", required: true, desc: "Bucket name."},
		{name: "access_key_id", secret: true, desc: "Access key id; set it together with `secret_access_key_wo`."},
		{name: "secret_access_key", secret: true, desc: "Secret access key; set it together with `access_key_id_wo`."},
		{name: "session_token", secret: true, desc: "Session token; ignored unless both keys are set, as the Python SDK."},
		{name: "prefix", desc: "Key prefix inside the bucket (the remote path is `<bucket>/<prefix>`, leading `/` stripped)."},
		{name: "region", desc: "Region."},
		{name: "endpoint_url", desc: "Endpoint of an S3-compatible service, such as `https://s3.example.test`."},
		{name: "s3_provider", def: "AWS", desc: "rclone's S3 `provider` (`AWS`, `Minio`, `Ceph`, `Other`, ...). With " +
			"`AWS` rclone addresses buckets as `<bucket>.<endpoint host>`; for another S3-compatible service set its own " +
			"provider, or `Other`, which uses path-style addressing."},
	},
	build: func(m *mount.Mount, v mountValues, _ []mount.Option) {
		m.S3 = &mount.S3{Bucket: v.str("bucket"), AccessKeyID: v["access_key_id"], SecretAccessKey: v["secret_access_key"],
			SessionToken: v["session_token"], Prefix: v["prefix"], Region: v["region"], Endpoint: v["endpoint_url"],
			S3Provider: v.strDefault("s3_provider", "AWS")}
	},
})

// NewS3MountResource returns the sandbox_s3_mount resource.
func NewS3MountResource() resource.Resource { return &mountResource{kind: s3MountType} }
