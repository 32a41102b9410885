package posix

import (
	"errors"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// wantPathError checks that err is the Python SDK's InvalidManifestPathError with
// the given rel text and reason.
func wantPathError(t *testing.T, err error, rel, reason string) {
	t.Helper()
	var e *sandbox.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v, want InvalidManifestPathError(%q, %q)", err, rel, reason)
	}
	msg := "manifest path must not escape root: " + rel
	if reason == sandbox.ReasonAbsolute {
		msg = "manifest path must be relative: " + rel
	}
	if e.Code != "invalid_manifest_path" || e.Message != msg || e.Context["rel"] != rel || e.Reason() != reason {
		t.Fatalf("got %q %q %#v, want %q rel=%q reason=%q", e.Code, e.Message, e.Context, msg, rel, reason)
	}
}

func TestIsWindowsAbsolute(t *testing.T) {
	yes := []string{`C:\x`, `C:/x`, `c:\`, `z:/a/b`, `1:/x`}
	no := []string{`/tmp/x`, `C:x`, `C:`, `\\server\share`, `//server/share`, `\x`, `a\b`, ``, `x`, `/C:/x`}
	for _, s := range yes {
		if !IsWindowsAbsolute(s) {
			t.Errorf("IsWindowsAbsolute(%q) = false", s)
		}
	}
	for _, s := range no {
		if IsWindowsAbsolute(s) {
			t.Errorf("IsWindowsAbsolute(%q) = true", s)
		}
	}
}

func TestNormPosix(t *testing.T) {
	tests := map[string]string{
		"":                ".",
		".":               ".",
		"a//b/./c/":       "a/b/c",
		"a/../b":          "b",
		"../a":            "../a",
		"a/../../b":       "../b",
		"/../a":           "/a",
		"//a/b":           "//a/b",
		"///a/b":          "/a/b",
		"/workspace/x/..": "/workspace",
		`a\b`:             `a\b`,
	}
	for in, want := range tests {
		if got := NormPosix(in); got != want {
			t.Errorf("NormPosix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJoinEntryPath(t *testing.T) {
	tests := []struct{ parent, child, want string }{
		{"safe", "../outside.txt", "safe/../outside.txt"},
		{"safe", "/tmp/outside.txt", "/tmp/outside.txt"},
		{".", "a", "a"},
		{"dir", "", "dir"},
		{"dir", ".", "dir"},
		{"dir", `sub\file.txt`, "dir/sub/file.txt"},
		{"dir/", "./x//y", "dir/x/y"},
	}
	for _, tt := range tests {
		if got := JoinEntryPath(tt.parent, tt.child); got != tt.want {
			t.Errorf("JoinEntryPath(%q, %q) = %q, want %q", tt.parent, tt.child, got, tt.want)
		}
	}
}

func TestValidateEntryPath(t *testing.T) {
	ok := map[string]string{"": ".", ".": ".", "./a": "a", "a//b": "a/b", `a\b.txt`: "a/b.txt", "a/": "a"}
	for in, want := range ok {
		got, err := ValidateEntryPath(in)
		if err != nil || got != want {
			t.Errorf("ValidateEntryPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []struct{ in, rel, reason string }{
		{`C:\tmp\outside.txt`, "C:/tmp/outside.txt", sandbox.ReasonAbsolute},
		{`C:/tmp//./x/`, "C:/tmp/x", sandbox.ReasonAbsolute},
		{"/etc/passwd", "/etc/passwd", sandbox.ReasonAbsolute},
		{`\etc\passwd`, "/etc/passwd", sandbox.ReasonAbsolute},
		{"//server/share", "//server/share", sandbox.ReasonAbsolute},
		{"../x", "../x", sandbox.ReasonEscapeRoot},
		{"a/../b", "a/../b", sandbox.ReasonEscapeRoot},
		{`a\..\b`, "a/../b", sandbox.ReasonEscapeRoot},
	}
	for _, tt := range bad {
		_, err := ValidateEntryPath(tt.in)
		wantPathError(t, err, tt.rel, tt.reason)
	}
}

func TestResolveWorkspacePath(t *testing.T) {
	root := "/nonexistent-sandbox-root/workspace"
	tests := []struct {
		rel      string
		allowAbs bool
		want     string
		errRel   string
		reason   string
	}{
		{rel: "", want: root},
		{rel: ".", want: root},
		{rel: `a\b`, want: root + "/a/b"},
		{rel: "a/./b/", want: root + "/a/b"},
		{rel: "a/../b", errRel: "a/../b", reason: sandbox.ReasonEscapeRoot},
		{rel: `C:\x`, errRel: "C:/x", reason: sandbox.ReasonAbsolute},
		{rel: `C:\x`, allowAbs: true, errRel: "C:/x", reason: sandbox.ReasonAbsolute},
		{rel: root + "/a", errRel: root + "/a", reason: sandbox.ReasonAbsolute},
		{rel: root + "/a", allowAbs: true, want: root + "/a"},
		{rel: root + "/x/../a", allowAbs: true, want: root + "/a"},
		{rel: root + "/../etc/passwd", allowAbs: true, errRel: "/nonexistent-sandbox-root/etc/passwd", reason: sandbox.ReasonAbsolute},
	}
	for _, tt := range tests {
		got, err := ResolveWorkspacePath(root, tt.rel, tt.allowAbs)
		if tt.reason != "" {
			wantPathError(t, err, tt.errRel, tt.reason)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveWorkspacePath(%q, %v) = %q, %v; want %q", tt.rel, tt.allowAbs, got, err, tt.want)
		}
	}
}

func TestWorkspacePath(t *testing.T) {
	if got, err := WorkspacePath("/workspace", `pkg\a.txt`); err != nil || got != "/workspace/pkg/a.txt" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := WorkspacePath("workspace", "a"); err == nil || err.Error() != "sandbox workspace root must be absolute" {
		t.Errorf("relative root: %v", err)
	}
	_, err := WorkspacePath("/workspace", "/workspace/a")
	wantPathError(t, err, "/workspace/a", sandbox.ReasonAbsolute)
	_, err = WorkspacePath("/workspace", "../a")
	wantPathError(t, err, "../a", sandbox.ReasonEscapeRoot)
}

func TestNormalizeSandboxCwd(t *testing.T) {
	tests := []struct{ in, want, wantErr string }{
		{in: "tasks/./a/", want: "tasks/a"},
		{in: "./tasks", want: "tasks"},
		{in: ".", want: "."},
		{in: `tasks\a`, wantErr: "sandbox.cwd must use POSIX path separators"},
		{in: "", wantErr: "sandbox.cwd must be non-empty"},
		{in: " \t\x1c", wantErr: "sandbox.cwd must be non-empty"},
		{in: "/workspace/tasks/a", wantErr: "sandbox.cwd must be workspace-relative"},
		{in: "C:/tasks", wantErr: "sandbox.cwd must be workspace-relative"},
		{in: "tasks/../a", wantErr: "sandbox.cwd must not contain parent segments"},
	}
	for _, tt := range tests {
		got, err := NormalizeSandboxCwd(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("NormalizeSandboxCwd(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeSandboxCwd(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestWorkspaceScope(t *testing.T) {
	s, err := NewWorkspaceScope("tasks/./a")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]string{
		"plot.png":            "tasks/a/plot.png",
		"/workspace/plot.png": "/workspace/plot.png",
		`C:\x`:                `C:\x`,
		"":                    "tasks/a",
	}
	for in, want := range anchors {
		if got := s.Anchor(in); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", in, got, want)
		}
	}
	models := map[string]string{
		"shared/skill/SKILL.md": "../../shared/skill/SKILL.md",
		"tasks/a/out.txt":       "out.txt",
		"tasks/a":               ".",
		"tasks/b/./x":           "../b/x",
	}
	for in, want := range models {
		if got, err := s.ModelPath(in); err != nil || got != want {
			t.Errorf("ModelPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := s.ModelPath("/workspace/x"); err == nil || err.Error() != "workspace-relative display paths must not be absolute" {
		t.Errorf("absolute model path: %v", err)
	}
	var none WorkspaceScope
	if got := none.Anchor("a"); got != "a" {
		t.Errorf("zero scope Anchor = %q", got)
	}
	if got, _ := none.ModelPath("a/./b"); got != "a/b" {
		t.Errorf("zero scope ModelPath = %q", got)
	}
	if _, err := NewWorkspaceScope("../x"); err == nil {
		t.Error("invalid cwd must be refused")
	}
}
