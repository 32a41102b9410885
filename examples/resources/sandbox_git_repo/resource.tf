resource "sandbox_workspace" "ws" {
  local {}
}

# The docs/ directory of a public repository at a tag.
resource "sandbox_git_repo" "docs" {
  workspace_id = sandbox_workspace.ws.id
  path         = "reference"
  repo         = "openai/openai-agents-python"
  ref          = "v0.1.0"
  subpath      = "docs"
}

variable "git_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

# A private repository on a self-hosted server, tracking a branch: a push
# to main shows as an update in the next plan. The token is write-only.
resource "sandbox_git_repo" "tools" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "tools"
  repo                   = "platform/tools"
  ref                    = "main"
  url                    = "https://git.example.com/platform/tools.git"
  token_wo               = var.git_token
  credentials_wo_version = 1
}

output "checkouts" {
  value = {
    docs  = sandbox_git_repo.docs.commit
    tools = sandbox_git_repo.tools.commit
    files = sandbox_git_repo.tools.file_count
  }
}
