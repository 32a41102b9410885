package provider

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// snapshotEntries declares, in workspace ws, a directory and files with
// modes, a copied tree, an ephemeral file and a snapshot (to base) that
// excludes it; mountAddr, when set, names a mount the snapshot waits for.
func snapshotEntries(src, base, mountAddr string) string {
	after := `sandbox_file.note.id, sandbox_file.run.id, sandbox_local_dir.tree.id`
	if mountAddr != "" {
		after += ", " + mountAddr + ".id"
	}
	return fmt.Sprintf(`
resource "sandbox_dir" "out" {
  workspace_id = sandbox_workspace.ws.id
  path         = "out"
  permissions  = "0750"
}

resource "sandbox_file" "note" {
  workspace_id = sandbox_workspace.ws.id
  path         = "out/note.txt"
  content      = "note\n"
  permissions  = "0640"
  depends_on   = [sandbox_dir.out]
}

resource "sandbox_file" "run" {
  workspace_id = sandbox_workspace.ws.id
  path         = "bin/run.sh"
  content      = "#!/bin/sh\necho hi\n"
  permissions  = "0755"
}

resource "sandbox_file" "token" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tmp/token"
  content      = "ephemeral secret"
  permissions  = "0600"
  ephemeral    = true
}

resource "sandbox_local_dir" "tree" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
}

resource "sandbox_snapshot" "s" {
  workspace_id = sandbox_workspace.ws.id
  exclude      = [sandbox_file.token.path]
  local { base_path = %q }
  triggers = { after = join(",", [%s]) }
}
`, filepath.Join(src, "tree"), base, after)
}

// archiveMember is one member of an archive read back from disk.
type archiveMember struct {
	mode    int64
	typ     byte
	content string
}

func readArchive(raw []byte) (map[string]archiveMember, error) {
	out := map[string]archiveMember{}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out[hdr.Name] = archiveMember{mode: hdr.Mode, typ: hdr.Typeflag, content: string(b)}
	}
}

// checkSnapshotArchive reads the archive in state back: its sha256 matches
// the file, every persistent file is there with its bytes and mode, and
// nothing of the ephemeral file or of the mount (when mounted) is.
func checkSnapshotArchive(mounted bool) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		a := s.RootModule().Resources["sandbox_snapshot.s"].Primary.Attributes
		raw, err := os.ReadFile(a["path"])
		if err != nil {
			return err
		}
		return checkArchiveBytes(a, raw, mounted)
	}
}

// checkArchiveBytes checks an archive read back (raw) against the
// snapshot's attributes a and the entries of snapshotEntries.
func checkArchiveBytes(a map[string]string, raw []byte, mounted bool) error {
	if got := fmt.Sprintf("%x", sha256.Sum256(raw)); got != a["sha256"] || fmt.Sprint(len(raw)) != a["size"] {
		return fmt.Errorf("archive sha256 %s size %d, state says %s %s", got, len(raw), a["sha256"], a["size"])
	}
	m, err := readArchive(raw)
	if err != nil {
		return err
	}
	want := map[string]archiveMember{
		"./out/":            {mode: 0o750, typ: tar.TypeDir},
		"./out/note.txt":    {mode: 0o640, typ: tar.TypeReg, content: "note\n"},
		"./bin/run.sh":      {mode: 0o755, typ: tar.TypeReg, content: "#!/bin/sh\necho hi\n"},
		"./tree/a.txt":      {mode: 0o644, typ: tar.TypeReg, content: "tree a\n"},
		"./tree/sub/b.conf": {mode: 0o644, typ: tar.TypeReg, content: "b\n"}, // a copied file is 0644, as the Python SDK writes it
	}
	for name, w := range want {
		if got, ok := m[name]; !ok || got != w {
			return fmt.Errorf("member %s = %+v (present %v), want %+v", name, got, ok, w)
		}
	}
	for name := range m {
		if strings.HasPrefix(name, "./tmp/token") || strings.HasPrefix(name, "./.sandbox-") || strings.HasPrefix(name, "./data/") || strings.Contains(name, "sandbox-fs-helper") {
			return fmt.Errorf("member %s should have been left out", name)
		}
	}
	if mounted && m["./data/"].typ != 0 {
		return errors.New("the mount point itself was persisted")
	}
	if a["files.out/note.txt"] != sha("note\n") || a["file_count"] != "4" || a["fingerprint"] == "" {
		return fmt.Errorf("files/file_count/fingerprint in state: %v", a)
	}
	return nil
}

func snapshotArchiveGone(base string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		left, _ := filepath.Glob(filepath.Join(base, "*"))
		if len(left) > 0 {
			return fmt.Errorf("destroy left %v", left)
		}
		return nil
	}
}

func writeTreeSource(env *testEnv) {
	env.writeSource("tree/a.txt", "tree a\n", 0o644)
	env.writeSource("tree/sub/b.conf", "b\n", 0o600)
}

func TestAccSnapshot_local(t *testing.T) {
	t.Parallel()
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	srv := fakes3.Start(t, "bucket", map[string]string{"object.txt": "from the bucket\n"})
	env := newTestEnv(t)
	writeTreeSource(env)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	snaps := filepath.Join(t.TempDir(), "snaps")
	cfg := s3MountConfig(env, srv, "") + snapshotEntries(env.src, snaps, "sandbox_s3_mount.data")
	var archive string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             snapshotArchiveGone(snaps),
		Steps: []resource.TestStep{
			{
				Config: cfg, ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						b, err := os.ReadFile(filepath.Join(env.wsRoot(), "data", "object.txt"))
						if string(b) != "from the bucket\n" {
							return fmt.Errorf("the bucket is not mounted at data: %q, %w", b, err)
						}
						return nil
					},
					checkSnapshotArchive(true),
					func(s *terraform.State) error {
						archive = s.RootModule().Resources["sandbox_snapshot.s"].Primary.Attributes["path"]
						return nil
					},
				),
			},
			{Config: cfg, ConfigVariables: s3Vars(srv), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				// An archive changed out of band is taken again.
				PreConfig: func() { must(t, os.WriteFile(archive, []byte("not the archive"), 0o644)) },
				Config:    cfg, ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_snapshot.s", plancheck.ResourceActionCreate)}},
				Check: checkSnapshotArchive(true),
			},
			{
				// So is a deleted one.
				PreConfig: func() {
					left, _ := filepath.Glob(filepath.Join(snaps, "*.tar"))
					for _, p := range left {
						must(t, os.Remove(p))
					}
				},
				Config: cfg, ConfigVariables: s3Vars(srv),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_snapshot.s", plancheck.ResourceActionCreate)}},
				Check: checkSnapshotArchive(true),
			},
			{
				// An excluded path inside a mount is refused with the Python SDK's message.
				Config: strings.Replace(cfg, "exclude      = [sandbox_file.token.path]",
					`exclude      = [sandbox_file.token.path, "data/sub"]`, 1),
				ConfigVariables: s3Vars(srv),
				ExpectError:     regexp.MustCompile(`persist workspace skip path must not overlap mount path`),
			},
		},
	})
}
