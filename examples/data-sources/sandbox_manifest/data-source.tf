resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_dir" "tasks" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tasks"
  permissions  = "0750"
}

resource "sandbox_file" "readme" {
  workspace_id = sandbox_workspace.ws.id
  path         = "README.md"
  content      = "# Agent workspace\n"
  permissions  = "0644"
}

resource "sandbox_local_dir" "skills" {
  workspace_id = sandbox_workspace.ws.id
  path         = "skills"
  source       = "skills" # relative to the working directory
}

# The same workspace as the Python SDK's Manifest JSON: review it in the
# plan (`review`), or hand `json` to Manifest.model_validate_json() in the
# agent process (`json` is sensitive: it may carry secret file content).
data "sandbox_manifest" "workspace" {
  entries = {
    (sandbox_dir.tasks.path)        = sandbox_dir.tasks.manifest_entry
    (sandbox_file.readme.path)      = sandbox_file.readme.manifest_entry
    (sandbox_local_dir.skills.path) = sandbox_local_dir.skills.manifest_entry
  }
  environment = {
    LANG  = "C.UTF-8"
    LEVEL = { type = "str", value = "3" } # a Python SDK typed value
  }
  users  = [{ name = "agent" }]
  groups = [{ name = "agents", users = [{ name = "agent" }] }]
}

output "manifest_review" {
  value = data.sandbox_manifest.workspace.review
}

output "manifest" {
  value     = data.sandbox_manifest.workspace.json
  sensitive = true
}
