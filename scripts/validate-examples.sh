#!/usr/bin/env bash
# Runs `terraform validate` in every example directory against the provider
# binary given as $1 (dev_overrides: no registry, no network).
set -euo pipefail
provider=$1
cd "$(dirname "$0")/.."
TF=${TERRAFORM:-terraform}
export TF_CLI_CONFIG_FILE
TF_CLI_CONFIG_FILE=$(./scripts/dev-cli-config.sh "$provider")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
n=0
for dir in $(find examples -name '*.tf' -exec dirname {} \; | sort -u); do
  # Examples without a terraform block (resources, functions) get one.
  copy="$work/$(echo "$dir" | tr / _)"
  mkdir -p "$copy"
  cp "$dir"/*.tf "$copy"/
  cp "$dir"/*.json "$copy"/ 2>/dev/null || true # files an example reads with file()
  if ! grep -q required_providers "$copy"/*.tf; then
    printf 'terraform {\n  required_providers {\n    sandbox = { source = "agentsandbox/sandbox" }\n  }\n}\n' >"$copy/_providers.tf"
  fi
  n=$((n + 1))
  if out=$("$TF" -chdir="$copy" validate -no-color 2>&1); then
    echo "ok    $dir"
  else
    echo "FAIL  $dir"
    echo "$out" | sed 's/^/      /'
    status=1
  fi
done
echo "examples validated: $n"
exit $status
