# A Docker workspace on an image built with nothing pulled: run ./build.sh
# first (it builds sandbox-example/agent:latest FROM scratch with a static
# BusyBox; see docs/guides/images.md). pull_policy = "never" makes a missing
# image fail the apply instead of reaching a registry.

terraform {
  required_version = ">= 1.11"
  required_providers {
    sandbox = {
      source = "agentsandbox/sandbox"
    }
  }
}

provider "sandbox" {}

variable "image" {
  description = "The image build.sh made."
  type        = string
  default     = "sandbox-example/agent:latest"
}

resource "sandbox_workspace" "agent" {
  docker {
    image       = var.image
    pull_policy = "never"
    memory      = "2g" # no memory limit by default
    disk        = "4g" # the root is a tmpfs of this size (counts against memory)
  }
  # Provisioned with the image's groupadd/useradd/usermod.
  users  = [{ name = "agent" }]
  groups = [{ name = "agents", users = [{ name = "agent" }] }]
}

resource "sandbox_file" "task" {
  workspace_id = sandbox_workspace.agent.id
  path         = "task.md"
  content      = "List the files of this workspace.\n"
  owner        = "agent"
  group        = "agents"
  permissions  = "0640"
}

resource "sandbox_command" "whoami" {
  workspace_id = sandbox_workspace.agent.id
  shell        = "id && ls -l"
  user         = "agent"
  depends_on   = [sandbox_file.task]
}

output "whoami" {
  value = sandbox_command.whoami.stdout
}
