# The quickstart: a local sandbox workspace with a directory, a file, a
# secret file and a copy of the sample directory beside this file.
# Run it with `make demo` from the repository root; running it again
# changes nothing.

terraform {
  required_version = ">= 1.11"
  required_providers {
    sandbox = {
      source = "agentsandbox/sandbox"
    }
  }
}

# Workspaces default to .sandbox/<id> below the working directory.
provider "sandbox" {}

# A secret, written into the workspace through a write-only attribute: it is
# in no state and no plan output. `make demo` generates one and passes it as
# TF_VAR_api_token.
variable "api_token" {
  description = "Token for the agent, written to .secrets/api-token."
  type        = string
  sensitive   = true
  ephemeral   = true
}

resource "sandbox_workspace" "demo" {
  local {}
}

resource "sandbox_dir" "tasks" {
  workspace_id = sandbox_workspace.demo.id
  path         = "tasks"
  permissions  = "drwxr-x---"
  description  = "Where the agent writes its task outputs."
}

resource "sandbox_file" "readme" {
  workspace_id = sandbox_workspace.demo.id
  path         = "README.md"
  permissions  = "0644"
  content      = <<-EOT
    # Agent workspace

    Task outputs go in tasks/; reference material is in skills/.
  EOT
}

resource "sandbox_file" "api_token" {
  workspace_id       = sandbox_workspace.demo.id
  path               = ".secrets/api-token"
  permissions        = "0600"
  content_wo         = var.api_token
  content_wo_version = 1
}

resource "sandbox_local_dir" "skills" {
  workspace_id = sandbox_workspace.demo.id
  path         = "skills"
  source       = "sample"
  # Files are written 0644, as the Python SDK writes them (so sample/count-lines.sh
  # arrives without its executable bit); keep_source_permissions = true keeps
  # the source's modes instead.
  # Record each file's SHA-256 in state (the "files" output below); without
  # it, plans list at most ten changed files in `changes`.
  record_files = true
}

output "root" {
  description = "The workspace directory."
  value       = sandbox_workspace.demo.root
}

output "skills_file_count" {
  description = "How many files were copied from sample/."
  value       = sandbox_local_dir.skills.file_count
}

output "skills_sha256" {
  description = "Digest of the copied tree (tree_sha256)."
  value       = sandbox_local_dir.skills.tree_sha256
}

output "readme_sha256" {
  description = "SHA-256 of README.md, known at plan time."
  value       = sandbox_file.readme.content_sha256
}

output "files" {
  description = "Each copied file and its SHA-256."
  value       = sandbox_local_dir.skills.files
}
