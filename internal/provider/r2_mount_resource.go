package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// r2MountType is sandbox_r2_mount: the Python SDK's R2Mount (design/sdk-model.md §5.4).
var r2MountType = registerMountType(mountType{
	typ: mount.TypeR2,
	summary: "A Cloudflare R2 bucket mounted into a workspace: the Python SDK's `R2Mount`, through rclone's S3 backend with " +
		"`provider = Cloudflare`, `acl = private`.",
	fields: []mountField{
		{name: "bucket", required: true, desc: "Bucket name."},
		{name: "account_id", required: true, desc: "Cloudflare account id; the endpoint is `https://<account_id>.r2.cloudflarestorage.com`."},
		{name: "access_key_id", secret: true, desc: "Access key id; both keys or neither (`r2 credentials must include both access_key_id and secret_access_key`)."},
		{name: "secret_access_key", secret: true, desc: "Secret access key; both keys or neither."},
		{name: "custom_domain", desc: "Endpoint used instead of the account endpoint, such as `https://eu.r2.cloudflarestorage.com`."},
	},
	build: func(m *mount.Mount, v mountValues, _ []mount.Option) {
		m.R2 = &mount.R2{Bucket: v.str("bucket"), AccountID: v.str("account_id"), AccessKeyID: v["access_key_id"],
			SecretAccessKey: v["secret_access_key"], CustomDomain: v["custom_domain"]}
	},
})

// NewR2MountResource returns the sandbox_r2_mount resource.
func NewR2MountResource() resource.Resource { return &mountResource{kind: r2MountType} }
