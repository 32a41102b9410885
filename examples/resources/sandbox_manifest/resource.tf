resource "sandbox_workspace" "ws" {
  local {}
}

# A manifest in the Python SDK's JSON form, as the Python SDK's
# Manifest.model_dump_json() writes it: its dir, file, local_file, local_dir
# and git_repo entries are applied. Environment, users, groups and
# extra_path_grants belong to sandbox_workspace and fail the plan here.
resource "sandbox_manifest" "agent" {
  workspace_id = sandbox_workspace.ws.id
  manifest_json = jsonencode({
    version = 1
    entries = {
      "tasks" = {
        type        = "dir"
        permissions = { owner = 7, group = 5, other = 0 }
        children = {
          "todo.md" = { type = "file", content = "- [ ] triage\n" }
        }
      }
      "prompts/system.txt" = { type = "local_file", src = "prompts/system.txt" }
      "skills"             = { type = "local_dir", src = "skills" }
    }
  })
}

# Path to SHA-256 of every file the manifest wrote, known at plan time.
output "files" {
  value = sandbox_manifest.agent.files
}
