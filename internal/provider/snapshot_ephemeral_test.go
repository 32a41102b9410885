package provider

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

// ephemeralEntries declares, in sandbox_workspace.ws, a kept file, an
// ephemeral file, and a manifest with a kept file and an ephemeral
// directory; then a snapshot (to base) that lists nothing in exclude, and
// extra.
func ephemeralEntries(root, base, extra string) string {
	rootLine := ""
	if root != "" {
		rootLine = fmt.Sprintf("root = %q", root)
	}
	return fmt.Sprintf(`
resource "sandbox_file" "keep" {
  workspace_id = sandbox_workspace.ws.id
  path         = "keep.txt"
  content      = "kept\n"
}

resource "sandbox_file" "secret" {
  workspace_id = sandbox_workspace.ws.id
  path         = "cache/secret.txt"
  content      = "ephemeral secret\n"
  ephemeral    = true
}

resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({
    %s
    entries = {
      "kept.md" = { type = "file", content = "kept by the manifest\n" }
      "scratch" = { type = "dir", ephemeral = true, children = {
        "big.bin" = { type = "file", content = "scratch data\n" }
      } }
      "notes" = { type = "dir", children = {
        "tmp.txt" = { type = "file", content = "nested ephemeral\n", ephemeral = true }
        "keep.txt" = { type = "file", content = "nested kept\n" }
      } }
    }
  })
}

resource "sandbox_snapshot" "s" {
  workspace_id = sandbox_workspace.ws.id
  local { base_path = %q }
  triggers = { after = join(",", [sandbox_file.keep.id, sandbox_file.secret.id, sandbox_manifest.m.id]) }
}
%s`, rootLine, base, extra)
}

// ephemeralKept and ephemeralLeftOut are the workspace paths of
// ephemeralEntries a snapshot keeps and leaves out.
var (
	ephemeralKept    = []string{"keep.txt", "kept.md", "notes/keep.txt"}
	ephemeralLeftOut = []string{"cache/secret.txt", "scratch", "scratch/big.bin", "notes/tmp.txt"}
)

// archiveMembers lists the members of the archive at p, workspace-relative
// ("./a/" as "a").
func archiveMembers(p string) (map[string]archiveMember, error) {
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	m, err := readArchive(raw)
	if err != nil {
		return nil, err
	}
	out := map[string]archiveMember{}
	for name, mem := range m {
		rel := strings.TrimSuffix(strings.TrimPrefix(name, "./"), "/")
		if rel == "" || name == "." {
			rel = "."
		}
		out[rel] = mem
	}
	return out, nil
}

// checkEphemeralArchive lists the archive at p: every kept path is a
// member, no left-out path is (nor anything below one).
func checkEphemeralArchive(p string) error {
	m, err := archiveMembers(p)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, k := range ephemeralKept {
		if _, ok := m[k]; !ok {
			return fmt.Errorf("archive %s lacks %s; members: %v", p, k, names)
		}
	}
	for _, n := range names {
		for _, out := range ephemeralLeftOut {
			if n == out || strings.HasPrefix(n, out+"/") {
				return fmt.Errorf("archive %s holds the ephemeral %s; members: %v", p, n, names)
			}
		}
	}
	return nil
}

// snapshotPathCheck checks the archive of sandbox_snapshot.<name>.
func snapshotPathCheck(name string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		return checkEphemeralArchive(s.RootModule().Resources["sandbox_snapshot."+name].Primary.Attributes["path"])
	}
}

// snapshotFromElsewhere takes a snapshot of the workspace in state from a
// second configuration, in its own working directory and state, that knows
// nothing but the workspace's id, and lists its archive.
func snapshotFromElsewhere(t *testing.T, provider string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id := s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["id"]
		base := filepath.Join(t.TempDir(), "elsewhere")
		cfg := fmt.Sprintf(`%s
resource "sandbox_snapshot" "other" {
  workspace_id = %q
  local { base_path = %q }
}
`, provider, id, base)
		if !t.Run("second configuration", func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps:                    []resource.TestStep{{Config: cfg, Check: snapshotPathCheck("other")}},
			})
		}) {
			return fmt.Errorf("the snapshot taken from a second configuration failed")
		}
		return nil
	}
}

// TestAccSnapshot_ephemeralLocal: entries declared ephemeral (a
// sandbox_file and entries of a manifest) are left out of a snapshot that
// lists nothing in exclude, also when the snapshot is taken from another
// configuration, and a workspace restored from it lacks them.
func TestAccSnapshot_ephemeralLocal(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	cfg := env.config(ephemeralEntries("", snaps, ""))
	restored := env.config(ephemeralEntries("", snaps, `
resource "sandbox_workspace" "restored" {
  local {}
  restore_from = { path = sandbox_snapshot.s.path, sha256 = sandbox_snapshot.s.sha256 }
}
`))
	provider := fmt.Sprintf("provider \"sandbox\" {\n  local_base_dir = %q\n}\n", env.base)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeTestCheckFunc(snapshotPathCheck("s"), localRecord(env, true), snapshotFromElsewhere(t, provider))},
			{Config: restored, Check: func(s *terraform.State) error {
				root, err := rootOf(s, "sandbox_workspace.restored")
				if err != nil {
					return err
				}
				for _, k := range ephemeralKept {
					if _, err := os.Lstat(filepath.Join(root, k)); err != nil {
						return fmt.Errorf("restored workspace: %w", err)
					}
				}
				for _, out := range ephemeralLeftOut {
					if _, err := os.Lstat(filepath.Join(root, out)); !os.IsNotExist(err) {
						return fmt.Errorf("restored workspace holds the ephemeral %s (%w)", out, err)
					}
				}
				return nil
			}},
			{
				// ephemeral = false on an entry forgets its path; the manifest's stay.
				Config: strings.Replace(cfg, "ephemeral    = true", "ephemeral    = false", 1),
				Check: func(*terraform.State) error {
					buf := make([]byte, 64<<10)
					n, err := unix.Getxattr(env.wsRoot(), local.RecordAttrPrefix+"ephemeral", buf)
					if err != nil || strings.Contains(string(buf[:n]), "secret") || !strings.Contains(string(buf[:n]), `"scratch"`) {
						return fmt.Errorf("record after ephemeral = false: %q, %w", buf[:max(n, 0)], err)
					}
					return nil
				},
			},
			{
				// Destroying the entries forgets them: the record is gone with
				// the last one, and the workspace's root carries no record.
				Config: env.config(""),
				Check:  localRecord(env, false),
			},
		},
	})
}

// localRecord checks the record on the root of env's only workspace: the
// ephemeral paths of ephemeralEntries (want), or none at all.
func localRecord(env *testEnv, want bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		buf := make([]byte, 64<<10)
		n, err := unix.Getxattr(env.wsRoot(), local.RecordAttrPrefix+"ephemeral", buf)
		switch {
		case !want && errors.Is(err, unix.ENODATA):
			return nil
		case !want:
			return fmt.Errorf("the record survived its entries: %q, %w", buf[:max(n, 0)], err)
		case err != nil:
			return fmt.Errorf("the workspace root carries no record: %w", err)
		}
		got := string(buf[:n])
		for _, p := range []string{`"cache/secret.txt"`, `"scratch"`, `"notes/tmp.txt"`} {
			if !strings.Contains(got, p) {
				return fmt.Errorf("record %s lacks %s", got, p)
			}
		}
		if strings.Contains(got, "keep") {
			return fmt.Errorf("record %s names a kept entry", got)
		}
		return nil
	}
}

// TestAccSnapshot_ephemeralDocker is TestAccSnapshot_ephemeralLocal in a
// container, checked with stat inside the restored container.
func TestAccSnapshot_ephemeralDocker(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	cfg := env.config("", ephemeralEntries("/workspace", snaps, ""))
	restored := env.config("", ephemeralEntries("/workspace", snaps, fmt.Sprintf(`
resource "sandbox_workspace" "restored" {
  docker {
    image       = %q
    pull_policy = "never"
  }
  restore_from = { path = sandbox_snapshot.s.path, sha256 = sandbox_snapshot.s.sha256 }
}
`, dockertest.Image)))
	provider := fmt.Sprintf("provider \"sandbox\" {\n  local_base_dir = %q\n}\n", env.base)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: cfg, Check: resource.ComposeTestCheckFunc(
				env.expectSh("cat /workspace/cache/secret.txt /workspace/scratch/big.bin", "ephemeral secret\nscratch data"),
				snapshotPathCheck("s"), snapshotFromElsewhere(t, provider))},
			{Config: restored, Check: func(s *terraform.State) error {
				dst := s.RootModule().Resources["sandbox_workspace.restored"].Primary.Attributes["container_id"]
				env.seen[dst] = true
				script := "cd /workspace; for f in " + strings.Join(append(append([]string{}, ephemeralKept...), ephemeralLeftOut...), " ") +
					"; do stat -c %n \"$f\" 2>/dev/null || echo \"absent $f\"; done"
				got, err := sh(dst, script)
				if err != nil {
					return err
				}
				var want []string
				want = append(want, ephemeralKept...)
				for _, out := range ephemeralLeftOut {
					want = append(want, "absent "+out)
				}
				if got != strings.Join(want, "\n") {
					return fmt.Errorf("stat in the restored container:\n got %q\nwant %q", got, strings.Join(want, "\n"))
				}
				return nil
			}},
		},
	})
}

// TestAccSnapshot_ephemeralRecordTampered: the record inside the container
// is the agent's to edit. Paths naming nothing inside the workspace
// (../../etc, absolute paths, the root) exclude nothing and include
// nothing; an oversized or non-file record fails the snapshot at once,
// saying which workspace and why.
func TestAccSnapshot_ephemeralRecordTampered(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	snaps := filepath.Join(t.TempDir(), "snaps")
	const record = "/.sandbox-fs-digests/workspace-ephemeral.json"
	base := `
resource "sandbox_file" "keep" {
  workspace_id = sandbox_workspace.ws.id
  path         = "keep.txt"
  content      = "kept\n"
}

resource "sandbox_file" "secret" {
  workspace_id = sandbox_workspace.ws.id
  path         = "secret.txt"
  content      = "ephemeral\n"
  ephemeral    = true
}
`
	snapshot := func(name string) string {
		return base + fmt.Sprintf(`
resource "sandbox_snapshot" %q {
  workspace_id = sandbox_workspace.ws.id
  local { base_path = %q }
  triggers = { after = join(",", [sandbox_file.keep.id, sandbox_file.secret.id]) }
}
`, name, snaps)
	}
	var container string
	tamper := func(script string) func() {
		return func() {
			if out, err := sh(container, script); err != nil {
				t.Fatalf("tampering with the record: %v: %s", err, out)
			}
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: env.config("", base),
				Check: func(s *terraform.State) error {
					container = env.container(s)
					got, err := sh(container, "cat "+record)
					if err != nil || !strings.Contains(got, `["secret.txt"]`) || strings.Contains(got, "keep.txt") {
						return fmt.Errorf("record in the container: %q, %w", got, err)
					}
					return nil
				},
			},
			{
				PreConfig: tamper(`printf '%s' '{"version":1,"owners":{"x":["../../etc","/etc","/","..",".","secret.txt/../../..","C:/x","./../etc/passwd",""]}}' > ` + record),
				Config:    env.config("", snapshot("t")),
				Check: func(s *terraform.State) error {
					m, err := archiveMembers(s.RootModule().Resources["sandbox_snapshot.t"].Primary.Attributes["path"])
					if err != nil {
						return err
					}
					for n := range m {
						if n != "." && n != "keep.txt" && n != "secret.txt" {
							return fmt.Errorf("archive holds %q, which the workspace does not", n)
						}
					}
					// The tampered record replaced the provider's: the agent let
					// the ephemeral file in (documented), and nothing else.
					if _, ok := m["keep.txt"]; !ok {
						return fmt.Errorf("archive lacks keep.txt: %v", m)
					}
					if _, ok := m["secret.txt"]; !ok {
						return fmt.Errorf("archive lacks secret.txt, which the tampered record no longer names: %v", m)
					}
					return nil
				},
			},
			{
				PreConfig:   tamper("head -c 2000000 /dev/zero > " + record),
				Config:      env.config("", snapshot("t")+strings.Replace(snapshot("big"), base, "", 1)),
				ExpectError: bothRe("record of ephemeral entries is not valid: workspace docker:", "it holds more than 65536 bytes"),
			},
			{
				PreConfig:   tamper("rm -f " + record + " && ln -s /etc/passwd " + record),
				Config:      env.config("", snapshot("t")+strings.Replace(snapshot("link"), base, "", 1)),
				ExpectError: bothRe("record of ephemeral entries is not valid: workspace docker:", "is not a regular file"),
			},
			{
				PreConfig:   tamper("rm -f " + record + " && echo 'not json' > " + record),
				Config:      env.config("", snapshot("t")+strings.Replace(snapshot("junk"), base, "", 1)),
				ExpectError: errRe("not a version 1 record"),
			},
			{
				// Without a record nothing more is left out, and the destroy of
				// the ephemeral entry has nothing to forget.
				PreConfig: tamper("rm -f " + record),
				Config:    env.config("", snapshot("t")),
			},
		},
	})
}

// bothRe matches a then b, further on, in Terraform's error output.
func bothRe(a, b string) *regexp.Regexp {
	return regexp.MustCompile(errRe(a).String() + `(?s:.*)` + errRe(b).String())
}
