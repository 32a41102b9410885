#!/usr/bin/env bash
# make demo: applies examples/quickstart with the provider just built.
# Running it again changes nothing.
set -euo pipefail
provider=$1
cd "$(dirname "$0")/.."
TF=${TERRAFORM:-terraform}
export TF_CLI_CONFIG_FILE
TF_CLI_CONFIG_FILE=$(./scripts/dev-cli-config.sh "$provider")
export TF_IN_AUTOMATION=1
# dev_overrides need no `terraform init`; the provider is used as built.
"$TF" -chdir=examples/quickstart apply -auto-approve -input=false -compact-warnings
