#!/usr/bin/env bash
# Prints a Terraform/OpenTofu CLI configuration that installs
# agentsandbox/sandbox only from the filesystem mirror in $1 (made by
# `make mirror`) and every other provider from its registry as usual.
# Save it as ~/.terraformrc (Terraform), ~/.tofurc (OpenTofu), or anywhere
# named by TF_CLI_CONFIG_FILE.
set -euo pipefail
dir=$(cd "${1:-build/mirror}" && pwd)
cat <<CONF
provider_installation {
  filesystem_mirror {
    path    = "$dir"
    include = ["registry.terraform.io/agentsandbox/sandbox", "registry.opentofu.org/agentsandbox/sandbox"]
  }
  direct {
    exclude = ["registry.terraform.io/agentsandbox/sandbox", "registry.opentofu.org/agentsandbox/sandbox"]
  }
}
CONF
