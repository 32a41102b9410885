#!/usr/bin/env bash
# make test-mirror: proves that the filesystem mirror made by `make mirror`
# ($1) installs the provider the way a user installs it, with no
# dev_overrides: in a fresh directory, with TF_CLI_CONFIG_FILE naming only the
# mirror, `init` writes a lock file whose h1: hash is the one computed here
# from the mirror's zip, then plan, apply (the file is on disk) and destroy
# (it is gone), under Terraform and under OpenTofu ($TOFU). A CLI that is
# missing is skipped, except under CI=true, where it fails.
set -euo pipefail
mirror=$(cd "$1" && pwd)
tofu=${TOFU:-tofu}
cd "$(dirname "$0")/.."
project=terraform-provider-sandbox
fail() { echo "test-mirror: FAIL: $*" >&2; exit 1; }
for t in unzip sha256sum base64 xxd; do command -v "$t" >/dev/null || fail "needs $t"; done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
./scripts/mirror-cli-config.sh "$mirror" >"$work/cli.tfrc"
grep -q dev_overrides "$work/cli.tfrc" && fail "the CLI configuration has dev_overrides"

# h1: is the dirhash of the unpacked package: SHA-256 over the sorted
# "<sha256>  <name>" lines of its files, base64.
h1() {
  local dir
  dir=$(mktemp -d -p "$work")
  unzip -q "$1" -d "$dir"
  (cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while read -r f; do
    printf '%s  %s\n' "$(sha256sum "$f" | cut -c1-64)" "$f"
  done) | sha256sum | cut -c1-64 | xxd -r -p | base64
}

platform="$(go env GOOS)_$(go env GOARCH)"
run() { # run <cli> <registry host>
  local cli=$1 host=$2 dir zip version expect
  if ! command -v "$cli" >/dev/null; then
    [ "${CI:-}" = true ] && fail "$cli not found"
    echo "test-mirror: SKIP $cli: not found (CI=true fails instead)"
    return
  fi
  zip=$(ls "$mirror/$host/agentsandbox/sandbox/${project}_"*"_${platform}.zip" 2>/dev/null | tail -1 || true)
  [ -n "$zip" ] || fail "no $platform zip under $mirror/$host: run make mirror"
  version=$(basename "$zip" "_${platform}.zip")
  version=${version#"${project}_"}
  expect="h1:$(h1 "$zip")"

  dir="$work/$(basename "$cli")"
  mkdir -p "$dir"
  cat >"$dir/main.tf" <<'TF'
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

resource "sandbox_workspace" "ws" {
  root = abspath("${path.root}/ws")
  local {}
}

resource "sandbox_file" "hello" {
  workspace_id = sandbox_workspace.ws.id
  path         = "hello.txt"
  content      = "installed from the mirror\n"
}
TF
  export TF_CLI_CONFIG_FILE="$work/cli.tfrc" TF_IN_AUTOMATION=1
  unset TF_PLUGIN_CACHE_DIR
  local tf=("$cli" -chdir="$dir")
  "${tf[@]}" init -input=false -no-color >"$dir/init.log" 2>&1 || { cat "$dir/init.log"; fail "$cli init"; }
  local lock="$dir/.terraform.lock.hcl"
  [ -f "$lock" ] || fail "$cli init wrote no lock file"
  grep -qF "provider \"$host/agentsandbox/sandbox\"" "$lock" || { cat "$lock"; fail "$cli: lock file without $host/agentsandbox/sandbox"; }
  grep -qF "version = \"$version\"" "$lock" || { cat "$lock"; fail "$cli: lock file without version $version"; }
  grep -qF "\"$expect\"" "$lock" || { cat "$lock"; fail "$cli: lock file without the package's hash $expect"; }
  "${tf[@]}" plan -input=false -no-color -out=tfplan >"$dir/plan.log" 2>&1 || { cat "$dir/plan.log"; fail "$cli plan"; }
  grep -q '2 to add' "$dir/plan.log" || { cat "$dir/plan.log"; fail "$cli plan does not add the workspace and the file"; }
  "${tf[@]}" apply -input=false -no-color tfplan >"$dir/apply.log" 2>&1 || { cat "$dir/apply.log"; fail "$cli apply"; }
  [ "$(cat "$dir/ws/hello.txt" 2>/dev/null)" = "installed from the mirror" ] || fail "$cli apply: ws/hello.txt missing or wrong"
  "${tf[@]}" destroy -auto-approve -input=false -no-color >"$dir/destroy.log" 2>&1 || { cat "$dir/destroy.log"; fail "$cli destroy"; }
  [ ! -e "$dir/ws/hello.txt" ] || fail "$cli destroy left ws/hello.txt"
  echo "ok    $cli: init from the mirror ($version, $expect), plan, apply, destroy"
}
run terraform registry.terraform.io
run "$tofu" registry.opentofu.org
