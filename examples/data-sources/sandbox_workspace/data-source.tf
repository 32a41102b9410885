# A workspace another root module owns, found by its id (shared through
# that module's outputs or terraform_remote_state)...
data "sandbox_workspace" "shared" {
  id = var.workspace_id
}

# ...or, for a docker workspace, by labels that single out its container.
data "sandbox_workspace" "eval" {
  labels = { team = "evals", run = "nightly" }
}

resource "sandbox_file" "task" {
  workspace_id = data.sandbox_workspace.shared.id
  path         = "task.md"
  content      = "Fix the failing test.\n"
}

variable "workspace_id" {
  type = string
}
