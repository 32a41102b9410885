variable "r2_access_key_id" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "r2_secret_access_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_workspace" "ws" {
  docker {
    image  = "example.com/agents/runtime-with-rclone:1"
    fuse   = true # in-container FUSE mounts need /dev/fuse and CAP_SYS_ADMIN
    memory = "2g" # no memory limit by default
    disk   = "4g" # the root is a tmpfs of this size (counts against memory)
  }
}

resource "sandbox_r2_mount" "assets" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "assets"
  bucket                 = "example-assets"
  account_id             = "0123456789abcdef0123456789abcdef"
  read_only              = false
  access_key_id_wo       = var.r2_access_key_id
  secret_access_key_wo   = var.r2_secret_access_key
  credentials_wo_version = 1

  in_container {
    rclone {}
  }
}
