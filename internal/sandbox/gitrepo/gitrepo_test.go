package gitrepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:tok3n@example.com/o/r.git": "https://example.com/o/r.git",
		"git://127.0.0.1:9418/o/r.git":           "git://127.0.0.1:9418/o/r.git",
		"git@example.com:o/r.git":                "example.com:o/r.git",
		"ssh://git@example.com/o/r.git":          "ssh://example.com/o/r.git",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScrubRemovesCredentials(t *testing.T) {
	s := Source{URL: "https://u:p4ss@example.com/o/r.git", Credentials: Credentials{Token: "tok-123", Password: "p4ss"}}
	err := s.scrub(errors.New("server said tok-123 and p4ss at https://u:p4ss@example.com/o/r.git"), "fetching")
	for _, secret := range []string{"tok-123", "p4ss"} {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("error holds a credential: %v", err)
		}
	}
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("want ErrUnreachable, got %v", err)
	}
}

// repoWith builds a repository with files and symlinks (name → target)
// and returns its file:// URL.
func repoWith(t *testing.T, files, links map[string]string) string {
	t.Helper()
	need.Tools(t, "Git tests", "git")
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	for p, c := range files {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
	}
	for p, target := range links {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.Symlink(target, filepath.Join(dir, p)))
	}
	run("add", "-A")
	run("commit", "-q", "-m", "c")
	return "file://" + dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestFetchWritesTheSubpath(t *testing.T) {
	url := repoWith(t, map[string]string{"a.txt": "a", "docs/b.md": "b"}, nil)
	ctx := context.Background()
	commit, err := Resolve(ctx, Source{URL: url}, "main")
	if err != nil || len(commit) != 40 {
		t.Fatalf("Resolve: %q, %v", commit, err)
	}
	co, err := Fetch(ctx, Source{URL: url}, "main", commit, "docs")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(co.Dir, "b.md"))
	if err != nil || string(b) != "b" {
		t.Fatalf("b.md: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(co.Dir, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a.txt outside the subpath was written: %v", err)
	}
	must(t, co.Close())
	if _, err := os.Stat(co.Dir); !os.IsNotExist(err) {
		t.Fatalf("Close left %s: %v", co.Dir, err)
	}
	if _, err := Fetch(ctx, Source{URL: url}, "main", strings.Repeat("0", 40), ""); !errors.Is(err, ErrMoved) {
		t.Fatalf("a different planned commit: want ErrMoved, got %v", err)
	}
	if _, err := Fetch(ctx, Source{URL: url}, "main", commit, "nope"); !errors.Is(err, ErrSubpathMissing) {
		t.Fatalf("want ErrSubpathMissing, got %v", err)
	}
}

func TestFetchRefusesSymlinks(t *testing.T) {
	for name, target := range map[string]string{"outside": "../../etc/passwd", "inside": "a.txt"} {
		url := repoWith(t, map[string]string{"a.txt": "a"}, map[string]string{"docs/link": target})
		_, err := Fetch(context.Background(), Source{URL: url}, "main", "", "")
		if err == nil || !strings.Contains(err.Error(), "symlink docs/link -> "+target) {
			t.Fatalf("%s: want a symlink refusal, got %v", name, err)
		}
		want := map[string]string{"outside": "pointing outside", "inside": "pointing inside"}[name]
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v does not say %q", name, err, want)
		}
	}
}

func TestAuthMethods(t *testing.T) {
	a, err := Source{URL: "https://h/r.git", Credentials: Credentials{Token: "tok"}}.auth()
	if err != nil || a.String() != "http-basic-auth - x-access-token:*******" {
		t.Fatalf("token: %v, %v", a, err)
	}
	a, err = Source{URL: "https://h/r.git", Credentials: Credentials{Username: "u", Password: "p"}}.auth()
	if err != nil || a.String() != "http-basic-auth - u:*******" {
		t.Fatalf("basic: %v, %v", a, err)
	}
	if a, err := (Source{URL: "https://h/r.git"}).auth(); a != nil || err != nil {
		t.Fatalf("none: %v, %v", a, err)
	}
	_, err = Source{URL: "ssh://git@h/r.git", Credentials: Credentials{SSHPrivateKey: "not a key SECRET"}}.auth()
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("bad key: %v", err)
	}
}
