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
