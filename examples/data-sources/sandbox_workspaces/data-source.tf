# A clean-up job after a cancelled CI run: the run's workspaces, found by the
# label its configuration gave them, whether or not any state still holds them.
data "sandbox_workspaces" "run" {
  docker {}
  labels = { ci_run = var.run_id }
}

# The same on a cluster: the workspace pods of one namespace.
data "sandbox_workspaces" "pods" {
  kubernetes {
    namespace = "ci"
  }
  labels = { ci_run = var.run_id }
}

# Each id imports (terraform import sandbox_workspace.leftover <id>, or an
# import block) so that a destroy removes it.
output "leftover_ids" {
  value = concat(data.sandbox_workspaces.run.workspaces[*].id, data.sandbox_workspaces.pods.workspaces[*].id)
}

# Those past their recorded expiry.
output "expired" {
  value = [for w in data.sandbox_workspaces.run.workspaces : w.id
  if w.expires_at != null && timecmp(w.expires_at, plantimestamp()) < 0]
}

variable "run_id" {
  type = string
}
