resource "sandbox_workspace" "ws" {
  docker {
    image  = "python:3.12-slim"
    memory = "2g" # no memory limit by default
    disk   = "4g" # the root is a tmpfs of this size (counts against memory)
  }
}

# Runs at every plan and apply that needs it; its output is never stored.
ephemeral "sandbox_exec" "token" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "cat /run/secrets/api-token 2>/dev/null || python3 -c 'import secrets; print(secrets.token_hex(16))'"
}

# Hand the output to a write-only attribute: it lands in the file, never in state.
resource "sandbox_file" "token" {
  workspace_id       = sandbox_workspace.ws.id
  path               = ".secrets/api-token"
  content_wo         = ephemeral.sandbox_exec.token.stdout
  content_wo_version = 1
  permissions        = "0600"
}
