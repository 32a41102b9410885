locals {
  setup = { shell = "pip install -r requirements.txt" }
  inputs = {
    entries  = { "requirements.txt" = sha256("flask==3.0\n") } # or filesha256() of the file the workspace gets
    commands = [local.setup]
  }
}

# Prepared environments taken with exactly these inputs, newest first.
data "sandbox_snapshots" "env" {
  local {
    base_path = "/var/cache/sandbox-envs"
  }
  inputs = local.inputs
}

output "prepared" {
  value = try(data.sandbox_snapshots.env.snapshots[0].path, "none: run the setup")
}
