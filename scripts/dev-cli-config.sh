#!/usr/bin/env bash
# Writes a Terraform/OpenTofu CLI configuration that makes the provider built
# in build/bin answer for agentsandbox/sandbox, with no registry and no
# network (dev_overrides), and prints its path.
set -euo pipefail
bin_dir=$(cd "$(dirname "$1")" && pwd)
conf="$bin_dir/../terraformrc"
cat >"$conf" <<CONF
provider_installation {
  dev_overrides {
    "registry.terraform.io/agentsandbox/sandbox" = "$bin_dir"
    "registry.opentofu.org/agentsandbox/sandbox" = "$bin_dir"
  }
  direct {}
}
CONF
echo "$(cd "$(dirname "$conf")" && pwd)/terraformrc"
