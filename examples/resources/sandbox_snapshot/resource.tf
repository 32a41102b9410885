resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_file" "token" {
  workspace_id = sandbox_workspace.ws.id
  path         = ".cache/token"
  content      = "not for the archive"
  ephemeral    = true # left out of every snapshot of the workspace
}

resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p out && echo ready > out/status"
}

resource "sandbox_snapshot" "after_setup" {
  workspace_id = sandbox_workspace.ws.id
  exclude      = ["out/debug"]      # in addition to the ephemeral entries
  local { base_path = "snapshots" } # snapshots/<snapshot_id>.tar, relative to the working directory
  triggers = { after = sandbox_command.setup.id }
}
