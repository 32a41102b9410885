package provider

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// forkTree describes every path below root: type, mode, and the sha256 of
// a file's content or a link's target.
func forkTree(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v", fi.Mode())
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + t
		}
		out[rel] = desc
		return nil
	})
	return out, err
}

func forkConfig(env *testEnv, body string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "src" {
  local {}
}
resource "sandbox_file" "token" {
  workspace_id = sandbox_workspace.src.id
  path         = "tmp/token"
  content      = "ephemeral secret"
  ephemeral    = true
}
resource "sandbox_command" "fill" {
  workspace_id = sandbox_file.token.workspace_id
  shell        = <<-SH
    set -e
    mkdir -p d0 d1 d2 d3 d4 d5 d6 d7 d8 d9 ro
    i=0
    while [ $i -lt 9997 ]; do printf 'file %%d\n' $i > d$((i %% 10))/f$i.txt; i=$((i+1)); done
    : > empty
    printf '#!/bin/sh\n' > run.sh
    chmod 0755 run.sh
    chmod 0640 d3/f3.txt
    printf 'ro\n' > ro/inner
    chmod 0555 ro
    ln -s d1/f1.txt link
  SH
}
%s`, env.base, body)
}

func TestAccWorkspaceFork_local10000Files(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cfg := forkConfig(env, `
resource "sandbox_workspace" "fork" {
  local {}
  restore_from = { workspace_id = sandbox_command.fill.workspace_id }
}
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(s *terraform.State) error {
				src := s.RootModule().Resources["sandbox_workspace.src"].Primary.Attributes["root"]
				dst := s.RootModule().Resources["sandbox_workspace.fork"].Primary.Attributes["root"]
				a, err := forkTree(src)
				if err != nil {
					return err
				}
				b, err := forkTree(dst)
				if err != nil {
					return err
				}
				delete(a, "tmp/token") // ephemeral: never copied
				files := 0
				for p, want := range a {
					if strings.HasPrefix(want, "-") {
						files++
					}
					if b[p] != want {
						return fmt.Errorf("%s: fork has %q, source %q", p, b[p], want)
					}
				}
				if len(b) != len(a) || files != 10000 {
					return fmt.Errorf("fork has %d paths, source %d (%d files)", len(b), len(a), files)
				}
				if _, ok := b["tmp/token"]; ok {
					return fmt.Errorf("the ephemeral file was forked")
				}
				if a["d3/f3.txt"][:10] != "-rw-r-----" || a["ro"][:10] != "dr-xr-xr-x" || !strings.HasPrefix(a["link"], "L") {
					return fmt.Errorf("the source is not what the test meant: %q %q %q", a["d3/f3.txt"], a["ro"], a["link"])
				}
				return nil
			},
		}},
	})
}

func TestAccWorkspaceFork_refusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	provider := fmt.Sprintf("provider \"sandbox\" {\n  local_base_dir = %q\n}\n", env.base)
	fork := func(restore string) string {
		return provider + `
resource "sandbox_workspace" "fork" {
  local {}
  restore_from = ` + restore + `
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config:      fork(`{ workspace_id = "local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:/nowhere", sha256 = "0000000000000000000000000000000000000000000000000000000000000000" }`),
				ExpectError: regexp.MustCompile(`(?s)sha256.*cannot be specified when.*workspace_id|workspace_id.*cannot be specified when.*sha256`),
			},
			{
				Config:      fork(`{ path = "x.tar" }`),
				ExpectError: regexp.MustCompile(`(?s)sha256.*must be specified`),
			},
			{
				Config: provider + `
resource "sandbox_workspace" "fork" {
  docker { image = "sandbox-test/busybox" }
  restore_from = { workspace_id = "local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:/nowhere" }
}
`,
				ExpectError: regexp.MustCompile(`(?s)Not a local workspace`),
			},
			{Config: provider},
		},
	})
}
