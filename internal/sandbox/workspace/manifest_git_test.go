package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// gitRepoIn makes a repository under dir with one commit of files and
// returns the commit.
func gitRepoIn(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	need.Tools(t, "Git tests", "git")
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run("init", "-q", "-b", "main")
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-q", "-m", "c")
	return run("rev-parse", "HEAD")
}

// A git_repo entry resolves its commit at plan time, is fetched and copied
// at apply, read back as a tree, planned from the last checkout without
// fetching, and removed by RemoveManifest.
func TestManifestGitRepo(t *testing.T) {
	eng, wd := newEngine(t)
	ctx := context.Background()
	commit := gitRepoIn(t, filepath.Join(wd, "repo"), map[string]string{"README.md": "hi\n", "sub/a.txt": "a\n"})
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse([]byte(`{"entries": {"src/r": {"type": "git_repo", "host": "example.invalid", "repo": "o/r", "ref": "main", "subpath": "sub"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	in := ManifestInputs{GitURLs: map[string]string{"src/r": "file://" + filepath.Join(wd, "repo")}}
	plan, err := eng.PlanManifestFrom(ctx, m, in)
	if err != nil {
		t.Fatal(err)
	}
	exp := plan.Expected()
	if exp.Entries["src/r"].Commit != commit || len(exp.Pending) != 1 {
		t.Fatalf("planned %+v, want commit %s and the tree pending", exp, commit)
	}
	applied, err := w.ApplyManifest(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(w.Root, "src/r/a.txt")); err != nil || string(b) != "a\n" {
		t.Fatalf("checkout: %q, %v", b, err)
	}
	if _, ok := applied.Files["src/r/a.txt"]; !ok || len(applied.Files) != 1 || len(applied.Pending) != 0 {
		t.Fatalf("applied files %v pending %v", applied.Files, applied.Pending)
	}
	read, err := w.ReadManifest(ctx, plan)
	if err != nil || read.Entries["src/r"].SHA256 != applied.Entries["src/r"].SHA256 || read.Files["src/r/a.txt"] != applied.Files["src/r/a.txt"] {
		t.Fatalf("read %+v (%v), applied %+v", read, err, applied)
	}
	in.GitApplied = plan.GitApplied()
	again, err := eng.PlanManifestFrom(ctx, m, in)
	if err != nil {
		t.Fatal(err)
	}
	if e := again.Expected(); len(e.Pending) != 0 || e.Entries["src/r"].SHA256 != applied.Entries["src/r"].SHA256 {
		t.Fatalf("re-plan %+v, want the applied tree", e)
	}
	var files []string
	for f := range applied.Files {
		files = append(files, f)
	}
	if _, err := w.RemoveManifest(ctx, plan.Entries, files); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(w.Root, "src/r")); !os.IsNotExist(err) {
		t.Fatalf("checkout left: %v", err)
	}
}
