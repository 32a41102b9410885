# A Docker sandbox workspace for an agent: a python:3.12-slim container with
# an unprivileged user and group, the app directory copied in, a config
# file, and a port published on 127.0.0.1. Needs a Docker daemon (the
# DOCKER_HOST environment, or docker_host below) and PULLS python:3.12-slim
# from Docker Hub when the daemon does not have it. On an offline runner use
# examples/images instead: an image built locally FROM scratch, nothing
# pulled (docs/guides/images.md).

terraform {
  required_version = ">= 1.11"
  required_providers {
    sandbox = {
      source = "agentsandbox/sandbox"
    }
  }
}

provider "sandbox" {
  # docker_host = "ssh://builder@build-box.example"  # default: $DOCKER_HOST or the local socket
}

resource "sandbox_workspace" "agent" {
  docker {
    image       = "python:3.12-slim"
    pull_policy = "missing"
    labels      = { "com.example.team" = "evals" }
    memory      = "2g" # no memory limit by default
    disk        = "4g" # the root is a tmpfs of this size (counts against memory)
  }
  # root defaults to /workspace inside the container.
  environment   = { LANG = "C.UTF-8", PYTHONUNBUFFERED = "1" }
  users         = [{ name = "agent" }]
  groups        = [{ name = "agents", users = [{ name = "agent" }] }]
  exposed_ports = [8000]
}

resource "sandbox_local_dir" "app" {
  workspace_id = sandbox_workspace.agent.id
  path         = "app"
  source       = "${path.module}/app"
  permissions  = "0750"
  group        = "agents"
}

resource "sandbox_file" "config" {
  workspace_id = sandbox_workspace.agent.id
  path         = "config/app.toml" # outside app/: a local_dir copy owns its directory
  content      = "port = 8000\n"
  permissions  = "0640"
  group        = "agents"
}

# The agent works as the unprivileged user "agent", never as root: its
# commands name the user (the container's own process stays root, so the
# provider can provision the accounts).
resource "sandbox_command" "venv" {
  workspace_id = sandbox_workspace.agent.id
  user         = "agent"
  shell        = "python3 -m venv /workspace/.venv && id -un"
}

output "container_id" {
  value = sandbox_workspace.agent.container_id
}

# Start a server in the container (docker exec ... python -m http.server 8000)
# and open this URL on the machine running Terraform.
output "preview_url" {
  value = sandbox_workspace.agent.endpoints[0].url_http
}
