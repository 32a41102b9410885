variable "s3_access_key_id" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "s3_secret_access_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_workspace" "ws" {
  local {}
}

# A bucket mounted read-only at <root>/data with rclone (FUSE). The keys are
# write-only: they reach the generated rclone config inside the workspace
# (written 0600, removed on destroy), never the state or the plan.
resource "sandbox_s3_mount" "data" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "data"
  bucket                 = "example-bucket"
  prefix                 = "datasets/"
  region                 = "us-east-1"
  access_key_id_wo       = var.s3_access_key_id
  secret_access_key_wo   = var.s3_secret_access_key
  credentials_wo_version = 1

  in_container {
    rclone { mode = "fuse" }
  }
}

# A public bucket with Mountpoint for Amazon S3: no keys, so mount-s3 runs
# with --no-sign-request.
resource "sandbox_s3_mount" "public" {
  workspace_id = sandbox_workspace.ws.id
  path         = "public"
  bucket       = "example-public-bucket"

  in_container {
    mountpoint {
      region = "us-east-1"
    }
  }
}

output "mounted_at" {
  value = sandbox_s3_mount.data.absolute_path
}
