variable "azure_account_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_workspace" "ws" {
  docker {
    image  = "example.com/agents/runtime-with-blobfuse2:1"
    fuse   = true
    memory = "2g" # no memory limit by default
    disk   = "4g" # the root is a tmpfs of this size (counts against memory)
  }
}

# blobfuse2 with an account key; the generated YAML is written 0600 under
# .sandbox-blobfuse-config/<session_id>/ and removed on destroy.
resource "sandbox_azure_blob_mount" "reports" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "reports"
  account                = "examplestorage"
  container              = "reports"
  account_key_wo         = var.azure_account_key
  credentials_wo_version = 1

  in_container {
    fuse {
      cache_type    = "file_cache"
      cache_size_mb = 1024
    }
  }
}

# The same container through rclone with a managed identity.
resource "sandbox_azure_blob_mount" "archive" {
  workspace_id          = sandbox_workspace.ws.id
  path                  = "archive"
  account               = "examplestorage"
  container             = "archive"
  identity_client_id_wo = "00000000-0000-0000-0000-000000000000"

  in_container {
    rclone {}
  }
}
