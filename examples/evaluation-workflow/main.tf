# An evaluation loop: populate a workspace, run the task, snapshot it and
# export the results, then start the next run from the snapshot.
#
#   terraform apply                               # run 1
#   terraform apply -var run=2 -var restore=true  # run 2 starts from run 1's snapshot

terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

variable "run" {
  type    = number
  default = 1
}

variable "restore" {
  type    = bool
  default = false
}

provider "sandbox" {}

# Populate.
resource "sandbox_workspace" "setup" {
  local {}
}

resource "sandbox_file" "task" {
  workspace_id = sandbox_workspace.setup.id
  path         = "task.md"
  content      = "Count the words in task.md and write the number to output/count.txt\n"
}

resource "sandbox_file" "api_token" {
  workspace_id = sandbox_workspace.setup.id
  path         = ".secrets/token"
  content      = "not persisted"
  permissions  = "0600"
  ephemeral    = true
}

# Run.
resource "sandbox_command" "run" {
  workspace_id = sandbox_workspace.setup.id
  shell        = "mkdir -p output && wc -w < task.md > output/count.txt"
  triggers     = { run = var.run, task = sandbox_file.task.content_sha256 }
}

# Snapshot the workspace (without the ephemeral token) and export the results.
resource "sandbox_snapshot" "after_run" {
  workspace_id = sandbox_workspace.setup.id
  exclude      = [sandbox_file.api_token.path]
  local { base_path = "snapshots" }
  triggers = { run = sandbox_command.run.id }
}

resource "sandbox_export" "results" {
  workspace_id = sandbox_workspace.setup.id
  paths        = ["output/**"]
  destination  = "results/run-${var.run}"
  triggers     = { run = sandbox_command.run.id }
}

# Restore: a fresh workspace for the next run, hydrated from the snapshot
# before any of its entries apply.
resource "sandbox_workspace" "next" {
  count = var.restore ? 1 : 0
  local {}
  restore_from = { path = sandbox_snapshot.after_run.path, sha256 = sandbox_snapshot.after_run.sha256 }
}

data "sandbox_file" "count" {
  workspace_id = sandbox_workspace.setup.id
  path         = "output/count.txt"
  depends_on   = [sandbox_command.run]
}

output "word_count" {
  value = trimspace(nonsensitive(data.sandbox_file.count.content))
}

output "snapshot" {
  value = { path = sandbox_snapshot.after_run.path, files = sandbox_snapshot.after_run.file_count }
}
