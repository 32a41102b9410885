variable "box_token" {
  description = "rclone's Box OAuth token JSON"
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_box_mount" "finance" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "finance"
  box_path               = "/Shared/Finance"
  box_sub_type           = "enterprise"
  token_wo               = var.box_token
  credentials_wo_version = 1

  in_container {
    rclone {}
  }
}
