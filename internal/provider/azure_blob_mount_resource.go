package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// azureBlobMountType is sandbox_azure_blob_mount: the Python SDK's
// AzureBlobMount (design/sdk-model.md §5.4).
var azureBlobMountType = registerMountType(mountType{
	typ: mount.TypeAzureBlob,
	summary: "An Azure Blob Storage container mounted into a workspace: the Python SDK's `AzureBlobMount`, through rclone " +
		"(`azureblob`) or blobfuse2 (`fuse`). An account key wins over a managed identity; with neither, rclone runs with " +
		"`use_msi = false` and blobfuse2 with `mode: msi`.",
	fields: []mountField{
		{name: "account", required: true, desc: "Storage account name."},
		{name: "container", required: true, desc: "Blob container name."},
		{name: "endpoint", desc: "Endpoint; default `https://<account>.blob.core.windows.net` (blobfuse2)."},
		{name: "identity_client_id", secret: true, desc: "Client id of a managed identity."},
		{name: "account_key", secret: true, desc: "Storage account key."},
	},
	build: func(m *mount.Mount, v mountValues, _ []mount.Option) {
		m.AzureBlob = &mount.AzureBlob{Account: v.str("account"), Container: v.str("container"), Endpoint: v["endpoint"],
			IdentityClientID: v["identity_client_id"], AccountKey: v["account_key"]}
	},
})

// NewAzureBlobMountResource returns the sandbox_azure_blob_mount resource.
func NewAzureBlobMountResource() resource.Resource { return &mountResource{kind: azureBlobMountType} }
