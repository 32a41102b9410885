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

  # Docker workspaces use $DOCKER_HOST (unix, tcp or ssh) unless set here.
  # A tcp:// daemon is always verified: give its CA with the client pair.
  # docker_host      = "tcp://build-box.example:2376"
  # docker_cert_path = "/etc/sandbox/docker-certs" # ca.pem, cert.pem, key.pem

  # Host sources may also come from /srv/datasets, read-only.
  extra_path_grants = [
    { path = "/srv/datasets", read_only = true, description = "shared evaluation data" },
  ]
}
