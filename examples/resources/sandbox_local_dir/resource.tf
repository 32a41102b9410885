resource "sandbox_workspace" "ws" {
  local {}
}

# Copy ./skills (relative to the working directory) into the workspace.
resource "sandbox_local_dir" "skills" {
  workspace_id = sandbox_workspace.ws.id
  path         = "skills"
  source       = "skills"
  permissions  = "0755"
}

output "skills" {
  value = {
    files       = sandbox_local_dir.skills.file_count
    bytes       = sandbox_local_dir.skills.total_bytes
    tree_sha256 = sandbox_local_dir.skills.tree_sha256
  }
}
