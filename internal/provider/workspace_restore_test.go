package provider

import (
	"archive/tar"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// writeTestArchive writes a tar of the given members (a regular file
// ./ok.txt first) and returns its path and sha256.
func writeTestArchive(t *testing.T, hdrs ...tar.Header) (string, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "evil.tar")
	f, err := os.Create(p)
	must(t, err)
	tw := tar.NewWriter(f)
	must(t, tw.WriteHeader(&tar.Header{Name: "./ok.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: 2}))
	_, err = tw.Write([]byte("ok"))
	must(t, err)
	for _, h := range hdrs {
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = 4
		}
		must(t, tw.WriteHeader(&h))
		if h.Typeflag == tar.TypeReg {
			_, err = tw.Write([]byte("evil"))
			must(t, err)
		}
	}
	must(t, tw.Close())
	must(t, f.Close())
	raw, err := os.ReadFile(p)
	must(t, err)
	return p, fmt.Sprintf("%x", sha256.Sum256(raw))
}

func restoreConfig(env *testEnv, p, sum string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  local {}
  restore_from = { path = %q, sha256 = %q }
}
`, env.base, p, sum)
}

// nothingCreated checks that no workspace root was made.
func nothingCreated(env *testEnv) func() {
	return func() {
		entries, _ := os.ReadDir(env.base)
		if len(entries) > 0 {
			env.t.Errorf("a refused restore left %v in %s", entries, env.base)
		}
	}
}

func TestAccWorkspaceRestore_refusesUnsafeArchives(t *testing.T) {
	t.Parallel()
	cases := map[string][]tar.Header{
		`"/etc/cron.d/evil"`: {{Name: "/etc/cron.d/evil", Typeflag: tar.TypeReg}},
		`"./../evil"`:        {{Name: "./../evil", Typeflag: tar.TypeReg}},
		`"./etc"`: {{Name: "./etc", Typeflag: tar.TypeSymlink, Linkname: "/etc"},
			{Name: "./etc/cron.d/evil", Typeflag: tar.TypeReg}},
		`"./shadow"`: {{Name: "./shadow", Typeflag: tar.TypeLink, Linkname: "../../../etc/shadow"}},
		`"./null"`:   {{Name: "./null", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}},
	}
	for member, hdrs := range cases {
		t.Run(member, func(t *testing.T) {
			env := newTestEnv(t)
			p, sum := writeTestArchive(t, hdrs...)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config:      restoreConfig(env, p, sum),
					ExpectError: regexp.MustCompile(`unsafe archive member ` + regexp.QuoteMeta(member) + `[\s\S]*nothing was\s+written`),
				}},
			})
			nothingCreated(env)()
		})
	}
}

func TestAccWorkspaceRestore_local(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	p, sum := writeTestArchive(t, tar.Header{Name: "./dir/", Typeflag: tar.TypeDir, Mode: 0o750},
		tar.Header{Name: "./dir/run.sh", Typeflag: tar.TypeReg, Mode: 0o755})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{
				Config:      restoreConfig(env, p, "0000000000000000000000000000000000000000000000000000000000000000"),
				ExpectError: regexp.MustCompile(`differs\s+from its sha256`),
			},
			{
				Config: restoreConfig(env, p, sum),
				Check: func(*terraform.State) error {
					if err := expectFile(filepath.Join(env.wsRoot(), "dir/run.sh"), "evil", 0o755); err != nil {
						return err
					}
					return expectFile(filepath.Join(env.wsRoot(), "ok.txt"), "ok", 0o644)
				},
			},
			{Config: restoreConfig(env, p, sum), PlanOnly: true},
		},
	})
}
