package provider

import (
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// gitFixture is a directory of bare repositories served to the tests, and
// a working clone per repository to commit into.
type gitFixture struct {
	t    *testing.T
	root string // bare repositories: <root>/<name>.git
	work string // working trees: <work>/<name>
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	need.Tools(t, "Git tests", "git")
	dir := t.TempDir()
	f := &gitFixture{t: t, root: filepath.Join(dir, "srv"), work: filepath.Join(dir, "work")}
	for _, d := range []string{f.root, f.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// git runs git in dir and returns its trimmed output.
func (f *gitFixture) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// create makes repository name with branch main and no commit.
func (f *gitFixture) create(name string) {
	f.t.Helper()
	f.git(f.root, "init", "--bare", "-b", "main", name+".git")
	f.git(f.work, "init", "-b", "main", name)
	f.git(filepath.Join(f.work, name), "remote", "add", "origin", filepath.Join(f.root, name+".git"))
}

// commit writes files (path → content; "+x:" prefix makes it executable,
// "" deletes it) in repository name, commits, pushes main and returns the
// commit id.
func (f *gitFixture) commit(name string, files map[string]string) string {
	f.t.Helper()
	dir := filepath.Join(f.work, name)
	for p, content := range files {
		full := filepath.Join(dir, p)
		if content == "" {
			f.git(dir, "rm", "-q", p)
			continue
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "+x:") {
			mode, content = 0o755, strings.TrimPrefix(content, "+x:")
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			f.t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			f.t.Fatal(err)
		}
	}
	f.git(dir, "add", "-A")
	f.git(dir, "commit", "-q", "-m", fmt.Sprintf("change %d files", len(files)))
	f.git(dir, "push", "-q", "origin", "main")
	return f.git(dir, "rev-parse", "HEAD")
}

// tag creates annotated tag name at HEAD of repository repo and pushes it.
func (f *gitFixture) tag(repo, name string) {
	f.t.Helper()
	dir := filepath.Join(f.work, repo)
	f.git(dir, "tag", "-a", "-m", name, name)
	f.git(dir, "push", "-q", "origin", name)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("listener address %v is not TCP", l.Addr())
	}
	return addr.Port
}

// daemon serves the repositories over git:// on 127.0.0.1 until the test
// ends and returns the URL prefix ("git://127.0.0.1:<port>/").
func (f *gitFixture) daemon() string {
	f.t.Helper()
	port := freePort(f.t)
	cmd := exec.Command("git", "daemon", "--export-all", "--base-path="+f.root, "--listen=127.0.0.1",
		fmt.Sprintf("--port=%d", port), "--reuseaddr", "--informative-errors", f.root)
	// git runs git-daemon as its child: both go, as a process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
			break
		}
		if i > 100 {
			f.t.Fatalf("git daemon did not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "git://" + addr + "/"
}

// httpServer serves the repositories with git http-backend on 127.0.0.1,
// requiring basic auth user:password, and returns the URL prefix.
func (f *gitFixture) httpServer(user, password string) string {
	f.t.Helper()
	execPath := f.git(f.root, "--exec-path")
	backend := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + f.root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != user || p != password {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	f.t.Cleanup(srv.Close)
	return srv.URL + "/"
}
