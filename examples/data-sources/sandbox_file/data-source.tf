resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_command" "eval" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p output && ./run-eval > output/score.json"
}

data "sandbox_file" "score" {
  workspace_id = sandbox_workspace.ws.id
  path         = "output/score.json"
  depends_on   = [sandbox_command.eval]
}

output "score" {
  # content is sensitive (a workspace file may hold a secret); a score is not.
  value = jsondecode(nonsensitive(data.sandbox_file.score.content))
}
