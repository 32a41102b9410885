resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_file" "requirements" {
  workspace_id = sandbox_workspace.ws.id
  path         = "requirements.txt"
  content      = "requests==2.32.3\n"
}

# Runs once, and again whenever requirements.txt changes.
resource "sandbox_command" "venv" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt"
  timeout      = 600
  triggers     = { requirements = sandbox_file.requirements.content_sha256 }
}

# ephemeral: kept out of saved plan files as well as state.
variable "api_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

# A secret reaches the command through its environment only: never state,
# plans or the command line, and it is REDACTED from stdout and stderr.
resource "sandbox_command" "login" {
  workspace_id           = sandbox_workspace.ws.id
  shell                  = "curl -fsS -H \"Authorization: Bearer $API_TOKEN\" https://api.example.com/v1/ping"
  environment_wo         = { API_TOKEN = var.api_token }
  environment_wo_version = 1 # change it to run again with a rotated token
}
