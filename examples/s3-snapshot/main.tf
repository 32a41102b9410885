# A workspace snapshot kept in an S3-compatible bucket, and a Docker
# workspace restored from it. The keys are write-only: they never reach
# the state. Refresh and destroy read AWS_ACCESS_KEY_ID and
# AWS_SECRET_ACCESS_KEY from the environment.
#
#   export AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...
#   terraform apply -var "s3_key_id=$AWS_ACCESS_KEY_ID" -var "s3_secret=$AWS_SECRET_ACCESS_KEY"

terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

variable "s3_key_id" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "s3_secret" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "endpoint_url" {
  type    = string
  default = "https://s3.example.test"
}

provider "sandbox" {}

resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_command" "setup" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p out && echo ready > out/status"
}

resource "sandbox_snapshot" "after_setup" {
  workspace_id = sandbox_workspace.ws.id
  s3 {
    bucket                 = "eval-snapshots"
    prefix                 = "runs/1" # the object is runs/1/<snapshot_id>.tar
    endpoint_url           = var.endpoint_url
    access_key_id_wo       = var.s3_key_id
    secret_access_key_wo   = var.s3_secret
    credentials_wo_version = 1
  }
  triggers = { after = sandbox_command.setup.id }
}

resource "sandbox_workspace" "next_run" {
  docker {
    image  = "python:3.12-slim"
    memory = "2g" # no memory limit by default
    disk   = "4g" # the root is a tmpfs of this size (counts against memory)
  }
  restore_from = {
    url                  = sandbox_snapshot.after_setup.url
    sha256               = sandbox_snapshot.after_setup.sha256
    endpoint_url         = var.endpoint_url
    access_key_id_wo     = var.s3_key_id
    secret_access_key_wo = var.s3_secret
  }
}

output "snapshot_url" {
  value = sandbox_snapshot.after_setup.url
}
