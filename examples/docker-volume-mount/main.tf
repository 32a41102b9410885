# A bucket attached to a container as a named Docker volume (the Python SDK's
# docker_volume strategy). The volume must exist before the container is
# created, so the mount resource has no workspace_id: it creates the volume
# with the rclone volume plugin and the Python SDK's generated driver options,
# and the workspace attaches it by name. Referencing volume_name makes
# Terraform create the volume first and destroy it last.
#
# Needs the rclone Docker volume plugin in the daemon
# (https://rclone.org/docker/); nothing FUSE runs inside the container.

terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

variable "s3_access_key_id" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "s3_secret_access_key" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_s3_mount" "data" {
  path                   = "data"
  bucket                 = "example-bucket"
  region                 = "us-east-1"
  access_key_id_wo       = var.s3_access_key_id
  secret_access_key_wo   = var.s3_secret_access_key
  credentials_wo_version = 1

  docker_volume {
    driver = "rclone"
    driver_options = {
      "vfs-cache-mode" = "off"
    }
  }
}

resource "sandbox_workspace" "agent" {
  docker {
    image = "python:3.12-slim"
    volumes = [{
      volume_name = sandbox_s3_mount.data.volume_name
      path        = sandbox_s3_mount.data.path
      read_only   = sandbox_s3_mount.data.read_only
    }]
    memory = "2g" # no memory limit by default
    disk   = "4g" # the root is a tmpfs of this size (counts against memory)
  }
}

output "volume" {
  value = sandbox_s3_mount.data.volume_name
}
