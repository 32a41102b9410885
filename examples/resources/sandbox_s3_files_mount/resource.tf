resource "sandbox_workspace" "ws" {
  docker {
    image  = "example.com/agents/runtime-with-s3files:1"
    fuse   = true
    memory = "2g" # no memory limit by default
    disk   = "4g" # the root is a tmpfs of this size (counts against memory)
  }
}

# S3 Files authenticates with the sandbox's own IAM identity; options render
# as mount -t s3files -o <extra options>,ro,mounttargetip=...,region=...
resource "sandbox_s3_files_mount" "datasets" {
  workspace_id   = sandbox_workspace.ws.id
  path           = "datasets"
  file_system_id = "fs-1234567890abcdef0"
  subpath        = "/datasets"
  region         = "us-east-1"
  extra_options = {
    tlsport = "4049"
    iam     = null
  }

  in_container {
    s3files {
      mount_target_ip = "10.99.1.209"
    }
  }
}
