resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p src && printf 'print(1)\\n' > src/main.py"
}

# The tree before the agent runs.
resource "sandbox_snapshot" "before" {
  workspace_id = sandbox_command.setup.workspace_id
  local { base_path = "snapshots" }
}

resource "sandbox_command" "agent" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "printf 'print(2)\\n' > src/main.py"
  triggers     = { after = sandbox_snapshot.before.id }
}

# What the agent changed since the snapshot: shown in `terraform plan`
# through the outputs, for the reviewer of the PR that runs the evaluation.
data "sandbox_changes" "agent" {
  workspace_id    = sandbox_command.agent.workspace_id
  snapshot_path   = sandbox_snapshot.before.path
  snapshot_sha256 = sandbox_snapshot.before.sha256
  exclude         = ["node_modules"]
}

output "agent_changes" {
  value = data.sandbox_changes.agent.summary # "A path sha256", "M ...", "D ..." lines
}

output "agent_diff" {
  value = data.sandbox_changes.agent.diff # unified diff of the text files
}

# For a CI artefact: terraform output -raw agent_diff > agent.diff
