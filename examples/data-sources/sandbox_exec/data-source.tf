resource "sandbox_workspace" "ws" {
  environment = { LANG = "C.UTF-8" }
  local {}
}

# Runs on every plan and apply.
data "sandbox_exec" "python" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["python3", "--version"]
  timeout      = 10
}

data "sandbox_exec" "count" {
  workspace_id             = sandbox_workspace.ws.id
  shell                    = "ls -la | wc -l"
  allow_non_zero_exit_code = true
}

output "python_version" {
  value = trimspace(data.sandbox_exec.python.stdout)
}
