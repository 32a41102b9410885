# A workspace in a directory of your choosing, kept when destroyed.
resource "sandbox_workspace" "agent" {
  root            = "/srv/sandboxes/agent-1"
  keep_on_destroy = true
  environment     = { LANG = "C.UTF-8" }
  exposed_ports   = [8080]
  local {}
}

# A throwaway workspace under the provider's local_base_dir.
resource "sandbox_workspace" "scratch" {
  local {}
}

output "preview_url" {
  value = sandbox_workspace.agent.endpoints[0].url_http
}

# ephemeral: kept out of saved plan files as well as state.
variable "api_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

# A container workspace: root defaults to /workspace inside the container,
# users and groups are provisioned there, and each exposed port is
# published on 127.0.0.1 with an ephemeral host port (see endpoints).
resource "sandbox_workspace" "container" {
  docker {
    image        = "python:3.12-slim"
    pull_policy  = "missing" # missing | always | never
    network_mode = null      # the daemon's default; "none" or a network name
    labels       = { "com.example.owner" = "evals" }
    fuse         = false # true adds /dev/fuse, SYS_ADMIN, apparmor:unconfined
    memory       = "2g"  # no memory limit by default
    disk         = "4g"  # the root is a tmpfs of this size (counts against memory)
  }
  environment = { LANG = "C.UTF-8" }
  # Container environment kept out of state (docker inspect still shows it).
  environment_wo         = { API_TOKEN = var.api_token }
  environment_wo_version = 1
  users                  = [{ name = "agent" }]
  groups                 = [{ name = "team", users = [{ name = "agent" }] }]
  exposed_ports          = [8080]
}

output "container_url" {
  value = sandbox_workspace.container.endpoints[0].url_http
}

# Named Docker volumes, attached when the container is created. Each must
# exist first: a storage mount resource with the docker_volume strategy
# creates one (write volume_name = sandbox_s3_mount.x.volume_name so that
# Terraform creates it before the workspace), or `docker volume create`.
resource "sandbox_workspace" "with_data" {
  docker {
    image = "python:3.12-slim"
    volumes = [
      { volume_name = "team-datasets", path = "data" }, # /workspace/data, read-only
      { volume_name = "pip-cache", path = "/root/.cache/pip", read_only = false },
    ]
    memory = "2g" # no memory limit by default
    disk   = "4g" # the root is a tmpfs of this size (counts against memory)
  }
}

# A confined container: hard limits, a 2 GiB root, a read-only image and
# gVisor. no_new_privileges, init and the reduced capability set are on by
# default; memory, memory_swap, cpus and pids_limit change in place.
resource "sandbox_workspace" "confined" {
  docker {
    image            = "python:3.12-slim"
    memory           = "1g" # memory_swap defaults to memory: no swap
    cpus             = 1.5
    pids_limit       = 256
    disk             = "2g" # the root is a 2 GiB tmpfs
    shm_size         = "64m"
    tmpfs            = { "/tmp" = "size=256m" }
    ulimits          = { nofile = "1024:2048" }
    cap_add          = ["NET_BIND_SERVICE"]
    read_only_rootfs = true
    runtime          = "runsc" # must be registered with the Docker daemon
  }
}
