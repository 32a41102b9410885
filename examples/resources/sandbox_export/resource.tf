resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_command" "eval" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p output logs && echo '{\"score\": 0.9}' > output/score.json && echo done > logs/run.log"
}

resource "sandbox_export" "results" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["output/score.json", "logs/*.log"] # score.json must exist; logs may be none
  destination  = "results"                           # relative to the working directory
  triggers     = { run = sandbox_command.eval.id }
}
