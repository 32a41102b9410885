package provider

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/tartest"
)

// hostileArchive is one archive restore_from must refuse, and the error.
type hostileArchive struct {
	raw    []byte
	limits string // extra restore_from attributes
	want   string // regexp of the error
}

func symlink(name, target string) tar.Header {
	return tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target}
}

func hostileArchives(t *testing.T) map[string]hostileArchive {
	read := func(p, _ string) []byte {
		b, err := os.ReadFile(p)
		must(t, err)
		return b
	}
	member := func(name string) string {
		return `unsafe\s+archive\s+member\s+"` + regexp.QuoteMeta(name) + `"`
	}
	return map[string]hostileArchive{
		// 3 KB that archive/tar reads as a 5 GiB regular file.
		"pax sparse":     {raw: tartest.SparseBomb(5 << 30), want: member("./big") + `[\s\S]*sparse`},
		"old gnu sparse": {raw: tartest.OldGNUSparse(), want: member("./s") + `[\s\S]*sparse`},
		// a/b resolves to the root, so p = a/b/.. is its parent.
		"two-link chain": {raw: read(writeTestArchive(t, tar.Header{Name: "./a/", Typeflag: tar.TypeDir, Mode: 0o755},
			symlink("./a/b", ".."), symlink("./p", "a/b/.."))), want: member("./p") + `[\s\S]*outside\s+the\s+workspace\s+root`},
		// l2 resolves through d/l1 to d; l3 climbs d/l1 then out.
		"three-link chain": {raw: read(writeTestArchive(t, tar.Header{Name: "./d/", Typeflag: tar.TypeDir, Mode: 0o755},
			symlink("./d/l1", ".."), symlink("./l2", "d/l1/d"), symlink("./l3", "l2/l1/.."))),
			want: member("./l3") + `[\s\S]*outside\s+the\s+workspace\s+root`},
		"max_files": {raw: read(writeTestArchive(t, tar.Header{Name: "./two.txt", Typeflag: tar.TypeReg})),
			limits: "max_files = 1", want: `restore\s+stopped\s+at\s+"two.txt":\s+it\s+would\s+write\s+more\s+than\s+max_files\s+=\s+1`},
		"max_bytes": {raw: read(writeTestArchive(t, tar.Header{Name: "./two.txt", Typeflag: tar.TypeReg})),
			limits: "max_bytes = 5", want: `restore\s+stopped\s+at\s+"two.txt":\s+it\s+would\s+write\s+more\s+than\s+max_bytes\s+=\s+5`},
	}
}

// saveArchive writes raw to a file and returns its path and sha256.
func saveArchive(t *testing.T, raw []byte) (string, string) {
	p := filepath.Join(t.TempDir(), "hostile.tar")
	must(t, os.WriteFile(p, raw, 0o644))
	return p, fmt.Sprintf("%x", sha256.Sum256(raw))
}

func restoreFrom(p, sum, extra string) string {
	return fmt.Sprintf("restore_from = { path = %q, sha256 = %q, %s }", p, sum, extra)
}

func TestAccWorkspaceRestore_refusesBombsChainsAndLimits(t *testing.T) {
	t.Parallel()
	for name, tc := range hostileArchives(t) {
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(t)
			p, sum := saveArchive(t, tc.raw)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  local {}
  %s
}
`, env.base, restoreFrom(p, sum, tc.limits)),
					ExpectError: regexp.MustCompile(tc.want + `[\s\S]*nothing\s+was\s+written`),
				}},
			})
			nothingCreated(env)()
		})
	}
}

func TestAccWorkspaceRestore_dockerRefusesBombsChainsAndLimits(t *testing.T) {
	t.Parallel()
	for name, tc := range hostileArchives(t) {
		t.Run(name, func(t *testing.T) {
			newDockerEnv(t)
			p, sum := saveArchive(t, tc.raw)
			label := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
resource "sandbox_workspace" "ws" {
  docker {
    image       = %q
    pull_policy = "never"
    labels      = { "sandbox-test" = %q }
  }
  %s
}
`, dockertest.Image, label, restoreFrom(p, sum, tc.limits)),
					ExpectError: regexp.MustCompile(tc.want + `[\s\S]*nothing\s+was\s+written`),
				}},
			})
			res, err := dockertest.Client().ContainerList(context.Background(), client.ContainerListOptions{All: true,
				Filters: make(client.Filters).Add("label", "sandbox-test="+label)})
			must(t, err)
			if len(res.Items) > 0 {
				t.Fatalf("a refused restore left %d containers", len(res.Items))
			}
		})
	}
}

// unsafeSnapshotConfig is workspace ws (ws is its block), in which a
// command plants an absolute symlink x, and a snapshot of it to snaps;
// with exclude, the snapshot leaves x out and a second workspace (same
// block) is restored from it.
func unsafeSnapshotConfig(head, ws, snaps string, exclude bool) string {
	cfg := head + fmt.Sprintf(`
resource "sandbox_workspace" "ws" {
  %s
}

resource "sandbox_file" "kept" {
  workspace_id = sandbox_workspace.ws.id
  path         = "kept.txt"
  content      = "kept\n"
  permissions  = "0644"
}

resource "sandbox_command" "plant" {
  workspace_id = sandbox_workspace.ws.id
  command      = ["sh", "-c", "ln -s /etc/passwd x"]
}

resource "sandbox_snapshot" "s" {
  workspace_id   = sandbox_workspace.ws.id
  exclude_unsafe = %t
  local { base_path = %q }
  depends_on     = [sandbox_command.plant, sandbox_file.kept]
}
`, ws, exclude, snaps)
	if exclude {
		cfg += fmt.Sprintf(`
resource "sandbox_workspace" "restored" {
  %s
  restore_from = { path = sandbox_snapshot.s.path, sha256 = sandbox_snapshot.s.sha256 }
}
`, ws)
	}
	return cfg
}

var unsafeSnapshotError = regexp.MustCompile(`unsafe\s+archive\s+member\s+"\./x":\s+link\s+target\s+"/etc/passwd"[\s\S]*exclude_unsafe`)

func TestAccSnapshot_unsafeMemberLocal(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	head := fmt.Sprintf("provider \"sandbox\" {\n  local_base_dir = %q\n}\n", env.base)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             snapshotArchiveGone(snaps),
		Steps: []resource.TestStep{
			{Config: unsafeSnapshotConfig(head, "local {}", snaps, false), ExpectError: unsafeSnapshotError},
			{
				PreConfig: func() { must(t, snapshotArchiveGone(snaps)(nil)) },
				Config:    unsafeSnapshotConfig(head, "local {}", snaps, true),
				Check: func(s *terraform.State) error {
					a := s.RootModule().Resources["sandbox_snapshot.s"].Primary.Attributes
					if a["file_count"] != "1" {
						return fmt.Errorf("file_count %s", a["file_count"])
					}
					root := s.RootModule().Resources["sandbox_workspace.restored"].Primary.Attributes["root"]
					if root == "" {
						return fmt.Errorf("no root for the restored workspace")
					}
					if err := expectFile(filepath.Join(root, "kept.txt"), "kept\n", 0o644); err != nil {
						return err
					}
					if _, err := os.Lstat(filepath.Join(root, "x")); !errors.Is(err, os.ErrNotExist) {
						return fmt.Errorf("x was restored: %w", err)
					}
					return nil
				},
			},
		},
	})
}

func TestAccSnapshot_unsafeMemberDocker(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	ws := fmt.Sprintf("docker {\n    image       = %q\n    pull_policy = \"never\"\n  }", dockertest.Image)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             resource.ComposeTestCheckFunc(env.checkGone, snapshotArchiveGone(snaps)),
		Steps: []resource.TestStep{
			{Config: unsafeSnapshotConfig("", ws, snaps, false), ExpectError: unsafeSnapshotError},
			{
				PreConfig: func() { must(t, snapshotArchiveGone(snaps)(nil)) },
				Config:    unsafeSnapshotConfig("", ws, snaps, true),
				Check: func(s *terraform.State) error {
					env.container(s)
					dst := s.RootModule().Resources["sandbox_workspace.restored"].Primary.Attributes["container_id"]
					env.seen[dst] = true
					got, err := sh(dst, "cat /workspace/kept.txt; ls -A /workspace")
					if err != nil {
						return err
					}
					if !strings.Contains(got, "kept") || strings.Contains(got, "x\n") || strings.HasSuffix(got, "x") {
						return fmt.Errorf("restored workspace holds:\n%s", got)
					}
					return nil
				},
			},
		},
	})
}

// Changing only restore_from's limits does not replace the workspace.
func TestAccWorkspaceRestore_limitsDoNotReplace(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	p, sum := writeTestArchive(t, tar.Header{Name: "./two.txt", Typeflag: tar.TypeReg})
	cfg := func(extra string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

resource "sandbox_workspace" "ws" {
  local {}
  %s
}
`, env.base, restoreFrom(p, sum, extra))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg(""), Check: func(*terraform.State) error {
				return expectFile(filepath.Join(env.wsRoot(), "two.txt"), "evil", 0o644)
			}},
			{
				Config: cfg("max_files = 2, max_bytes = 6"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate)}},
			},
			{Config: cfg("max_files = 2, max_bytes = 6"), PlanOnly: true},
		},
	})
}
