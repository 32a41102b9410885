variable "gcs_hmac_access_id" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "gcs_hmac_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_workspace" "ws" {
  local {}
}

# HMAC keys: rclone reaches GCS through its S3 API (remote kind gcs_s3).
resource "sandbox_gcs_mount" "models" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "models"
  bucket                 = "example-models"
  prefix                 = "released/"
  access_id_wo           = var.gcs_hmac_access_id
  secret_access_key_wo   = var.gcs_hmac_secret
  credentials_wo_version = 1

  in_container {
    rclone {}
  }
}

# A public bucket through the native backend, anonymously.
resource "sandbox_gcs_mount" "public" {
  workspace_id = sandbox_workspace.ws.id
  path         = "public"
  bucket       = "gcp-public-data-landsat"

  in_container {
    rclone {}
  }
}
