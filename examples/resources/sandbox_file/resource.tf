resource "sandbox_workspace" "ws" {
  local {}
}

# Inline text.
resource "sandbox_file" "config" {
  workspace_id = sandbox_workspace.ws.id
  path         = "config/agent.toml"
  permissions  = "0644"
  content      = <<-EOT
    model = "small"
    max_steps = 20
  EOT
}

# A copy of a host file, hashed at plan time.
resource "sandbox_file" "dataset" {
  workspace_id = sandbox_workspace.ws.id
  path         = "data/train.csv"
  source       = "data/train.csv"
  # content_md5 as well, for a tool that checks it; SHA-256 is always computed.
  checksums = ["md5"]
}

# A secret that never lands in state: bump the version to rotate it.
variable "api_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_file" "token" {
  workspace_id       = sandbox_workspace.ws.id
  path               = ".secrets/api-token"
  permissions        = "0600"
  content_wo         = var.api_token
  content_wo_version = 1
}

output "config_sha256" {
  value = sandbox_file.config.content_sha256
}
