package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// protoV6Factories serves the provider in-process to real terraform.
var protoV6Factories = map[string]func() (tfprotov6.ProviderServer, error){
	"sandbox": NewProtocol6Server("test"),
}

// requireTF111 fails, never skips, a test run by a CLI older than 1.11, the
// first Terraform and the first OpenTofu with write-only attributes. OpenTofu
// reports its own version to the test framework (1.12.6 is OpenTofu 1.12.6),
// so one threshold serves both.
var requireTF111 = []tfversion.TerraformVersionCheck{tfversion.RequireAbove(tfversion.Version1_11_0)}

// testEnv is one test's base directory for workspaces and host sources.
type testEnv struct {
	t    *testing.T
	base string // local_base_dir
	src  string // a directory for host sources, granted to the provider
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	env := &testEnv{t: t, base: filepath.Join(dir, "base"), src: filepath.Join(dir, "src")}
	if err := os.MkdirAll(env.src, 0o755); err != nil {
		t.Fatal(err)
	}
	return env
}

// config returns HCL with a provider block for this env followed by body.
func (e *testEnv) config(body string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir    = %q
  extra_path_grants = [{ path = %q, read_only = true }]
}

resource "sandbox_workspace" "ws" {
  local {}
}
%s`, e.base, e.src, body)
}

// writeSource writes a host source file below env.src and returns its path.
func (e *testEnv) writeSource(rel, content string, mode os.FileMode) string {
	e.t.Helper()
	p := filepath.Join(e.src, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// wsRoot returns the only workspace root below env.base.
func (e *testEnv) wsRoot() string {
	e.t.Helper()
	entries, err := os.ReadDir(e.base)
	if err != nil {
		e.t.Fatal(err)
	}
	var roots []string
	for _, d := range entries {
		if d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			roots = append(roots, filepath.Join(e.base, d.Name()))
		}
	}
	if len(roots) != 1 {
		e.t.Fatalf("expected one workspace below %s, found %v", e.base, roots)
	}
	return roots[0]
}

// fileMode returns the permission bits of p, not following a symlink.
func fileMode(p string) (os.FileMode, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Perm(), nil
}

// expectFile checks content and mode of a file on disk.
func expectFile(p, content string, mode os.FileMode) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if string(b) != content {
		return fmt.Errorf("%s holds %q, want %q", p, b, content)
	}
	got, err := fileMode(p)
	if err != nil {
		return err
	}
	if got != mode {
		return fmt.Errorf("%s has mode %04o, want %04o", p, got, mode)
	}
	return nil
}

// fileGid returns the group id of p.
func fileGid(p string) (int, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	return int(fi.Sys().(*syscall.Stat_t).Gid), nil
}

func TestMain(m *testing.M) {
	// The suite checks modes set explicitly by the provider; a restrictive
	// umask proves the umask never decides them.
	syscall.Umask(0o077)
	// The tests need no CLI configuration. One named by TF_CLI_CONFIG_FILE
	// that does not exist only earns a warning on every command, but OpenTofu
	// prints it on stdout, where it breaks the test framework's reading of
	// `tofu version`.
	if p := os.Getenv("TF_CLI_CONFIG_FILE"); p != "" {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			os.Unsetenv("TF_CLI_CONFIG_FILE")
		}
	}
	// AWS_CA_BUNDLE, when set, makes rclone's S3 backend refuse every
	// remote; the storage-mount tests run rclone through the provider, which
	// passes its own environment on, so the variable goes.
	os.Unsetenv("AWS_CA_BUNDLE")
	os.Exit(m.Run())
}

// errRe matches text in Terraform's error output, which wraps long lines.
func errRe(text string) *regexp.Regexp {
	parts := strings.Fields(text)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(strings.Join(parts, `\s+`))
}

// hclString quotes s as an HCL string literal (JSON escapes are valid HCL,
// including \u0000 for a NUL byte).
func hclString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
