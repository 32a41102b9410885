terraform {
  required_providers {
    sandbox = {
      source = "agentsandbox/sandbox"
    }
  }
}

provider "sandbox" {
  # Default workspace roots go to <local_base_dir>/<id>.
  local_base_dir = ".sandbox"

  # Host sources may also come from /srv/datasets, read-only.
  extra_path_grants = [
    { path = "/srv/datasets", read_only = true, description = "shared evaluation data" },
  ]
}
