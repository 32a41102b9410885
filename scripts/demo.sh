#!/usr/bin/env bash
# make demo: applies examples/quickstart with the provider just built.
# Running it again changes nothing. `make demo-destroy` tears it down.
set -euo pipefail
provider=$1
action=${2:-apply}
cd "$(dirname "$0")/.."
TF=${TERRAFORM:-terraform}
export TF_CLI_CONFIG_FILE
TF_CLI_CONFIG_FILE=$(./scripts/dev-cli-config.sh "$provider")
export TF_IN_AUTOMATION=1
# The quickstart's secret is generated once and handed over in the
# environment, so it appears in no file of the example, in no state and in
# no plan output.
token_file=build/demo/api-token
if [ ! -s "$token_file" ]; then
  mkdir -p "$(dirname "$token_file")"
  (umask 077 && head -c 24 /dev/urandom | base64 >"$token_file")
fi
TF_VAR_api_token=$(cat "$token_file")
export TF_VAR_api_token
color=()
[ -t 1 ] || color=(-no-color)
# dev_overrides need no `terraform init`; the provider is used as built.
"$TF" -chdir=examples/quickstart "$action" -auto-approve -input=false -compact-warnings "${color[@]}"
