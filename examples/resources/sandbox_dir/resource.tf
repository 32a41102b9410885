resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_dir" "outputs" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tasks/outputs"
  permissions  = "drwxr-x---" # same as "0750"
  description  = "Where the agent writes its results."
}
