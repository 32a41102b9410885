# Applies a manifest written for the Python SDK (openai-agents-python's
# agents.sandbox.Manifest, e.g. `manifest.model_dump_json(indent=2)`) to a
# local workspace. Relative `src` values resolve against this directory
# (Terraform's working directory), as they resolve against the SDK
# process's working directory in Python.
#
#   terraform init && terraform plan   # review every entry, digest and mode
#   terraform apply
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

provider "sandbox" {}

resource "sandbox_workspace" "agent" {
  local {}
}

resource "sandbox_manifest" "agent" {
  workspace_id  = sandbox_workspace.agent.id
  manifest_json = file("${path.module}/manifest.json")
}

output "root" {
  value = sandbox_workspace.agent.root
}

output "entries" {
  value = sandbox_manifest.agent.entries
}
