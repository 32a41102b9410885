package posix

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func strPtr(s string) *string { return &s }

func mustGrant(t *testing.T, path string, readOnly bool) PathGrant {
	t.Helper()
	g, err := NewPathGrant(path, readOnly, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestWorkspacePathPolicy(t *testing.T) {
	if _, err := NewWorkspacePathPolicy("workspace", nil); err == nil || err.Error() != "sandbox workspace root must be absolute" {
		t.Fatalf("relative root: %v", err)
	}
	p, err := NewWorkspacePathPolicy("/workspace/", []PathGrant{
		mustGrant(t, "/tmp", false),
		mustGrant(t, "/opt", false),
		mustGrant(t, "/opt/toolchain", true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Root() != "/workspace" {
		t.Errorf("Root = %q", p.Root())
	}

	abs := []struct{ in, want, rel, reason string }{
		{in: "pkg/file.py", want: "/workspace/pkg/file.py"},
		{in: "pkg/../secret.txt", want: "/workspace/secret.txt"},
		{in: "/workspace/a/../b", want: "/workspace/b"},
		{in: `pkg\file.py`, want: "/workspace/pkg/file.py"},
		{in: "/tmp/secret.txt", rel: "/tmp/secret.txt", reason: sandbox.ReasonAbsolute},
		{in: `\tmp\secret.txt`, rel: "/tmp/secret.txt", reason: sandbox.ReasonAbsolute},
		{in: "pkg/../../secret.txt", rel: "pkg/../../secret.txt", reason: sandbox.ReasonEscapeRoot},
		{in: `C:\tmp\x`, rel: "C:/tmp/x", reason: sandbox.ReasonAbsolute},
	}
	for _, tt := range abs {
		got, err := p.AbsoluteWorkspacePath(tt.in)
		if tt.reason != "" {
			wantPathError(t, err, tt.rel, tt.reason)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("AbsoluteWorkspacePath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}

	rels := map[string]string{"pkg/file.py": "pkg/file.py", "/workspace": ".", "/workspace/a/b": "a/b", "": "."}
	for in, want := range rels {
		if got, err := p.RelativePath(in); err != nil || got != want {
			t.Errorf("RelativePath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err = p.RelativePath("../x")
	wantPathError(t, err, "../x", sandbox.ReasonEscapeRoot)

	norm := []struct {
		in       string
		forWrite bool
		want     string
		rel      string
		reason   string
	}{
		{in: "a/b", want: "/workspace/a/b"},
		{in: "/tmp/result.txt", want: "/tmp/result.txt"},
		{in: "/tmp/x/../y", want: "/tmp/y"},
		{in: "/opt/toolchain/cache.db", want: "/opt/toolchain/cache.db"},
		{in: "/opt/other", forWrite: true, want: "/opt/other"},
		{in: "/var/result.txt", rel: "/var/result.txt", reason: sandbox.ReasonAbsolute},
		{in: "../tmp/x", rel: "../tmp/x", reason: sandbox.ReasonEscapeRoot},
		{in: "/tmpfoo", rel: "/tmpfoo", reason: sandbox.ReasonAbsolute},
	}
	for _, tt := range norm {
		got, err := p.NormalizePath(tt.in, tt.forWrite)
		if tt.reason != "" {
			wantPathError(t, err, tt.rel, tt.reason)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizePath(%q, %v) = %q, %v; want %q", tt.in, tt.forWrite, got, err, tt.want)
		}
	}

	// The longest grant (/opt/toolchain, read-only) wins over /opt.
	_, err = p.NormalizePath("/opt/toolchain/cache.db", true)
	var e *sandbox.Error
	if !errors.As(err, &e) {
		t.Fatalf("write under read-only grant: %v", err)
	}
	if e.Code != "workspace_archive_write_error" || e.Op != "write" || e.Retryable != nil ||
		e.Message != "failed to write archive for path: /opt/toolchain/cache.db" ||
		e.Context["path"] != "/opt/toolchain/cache.db" || e.Context["grant_path"] != "/opt/toolchain" ||
		e.Reason() != "read_only_extra_path_grant" {
		t.Errorf("got %+v", e)
	}

	rules, err := p.ExtraPathGrantRules()
	if err != nil {
		t.Fatal(err)
	}
	want := []PathGrantRule{{"/tmp", false}, {"/opt", false}, {"/opt/toolchain", true}}
	if len(rules) != len(want) {
		t.Fatalf("rules = %+v", rules)
	}
	for i := range want {
		if rules[i] != want[i] {
			t.Errorf("rule %d = %+v, want %+v", i, rules[i], want[i])
		}
	}
}

func TestNewPathGrant(t *testing.T) {
	tests := []struct {
		path     string
		hostPath *string
		wantPath string
		wantHost string
		field    string
		msg      string
	}{
		{path: "/tmp/", wantPath: "/tmp"},
		{path: "/a//b", wantPath: "/a/b"},
		{path: "/a/./b/../c", wantPath: "/a/c"},
		{path: "tmp", field: "path", msg: "sandbox path grant path must be POSIX absolute"},
		{path: "", field: "path", msg: "sandbox path grant path must be POSIX absolute"},
		{path: `C:\data`, field: "path", msg: "sandbox path grant path must be POSIX absolute"},
		{path: "/", field: "path", msg: "sandbox path grant path must not be filesystem root"},
		{path: "//", field: "path", msg: "sandbox path grant path must not be filesystem root"},
		{path: "/a/..", field: "path", msg: "sandbox path grant path must not be filesystem root"},
		{path: "/mnt/d", hostPath: strPtr("/srv/shared "), wantPath: "/mnt/d", wantHost: "/srv/shared "},
		{path: "/mnt/d", hostPath: strPtr("/srv//x/./y/"), wantPath: "/mnt/d", wantHost: "/srv/x/y"},
		{path: "/mnt/d", hostPath: strPtr("C:/Users/example/shared-data"), wantPath: "/mnt/d", wantHost: `C:\Users\example\shared-data`},
		{path: "/mnt/d", hostPath: strPtr("/"), field: "host_path", msg: "sandbox path grant path must not be filesystem root"},
		{path: "/mnt/d", hostPath: strPtr(`C:\`), field: "host_path", msg: "sandbox path grant path must not be filesystem root"},
		{path: "/mnt/d", hostPath: strPtr("/srv/../secret"), field: "host_path", msg: "sandbox path grant host_path must not contain parent segments"},
		{path: "/mnt/d", hostPath: strPtr(`C:\a\..\b`), field: "host_path", msg: "sandbox path grant host_path must not contain parent segments"},
		{path: "/mnt/d", hostPath: strPtr("//server/share"), field: "host_path", msg: "sandbox path grant host_path does not support UNC or device paths"},
		{path: "/mnt/d", hostPath: strPtr(`\\server\share`), field: "host_path", msg: "sandbox path grant host_path does not support UNC or device paths"},
		{path: "/mnt/d", hostPath: strPtr(`/\server\share`), field: "host_path", msg: "sandbox path grant host_path does not support UNC or device paths"},
		{path: "/mnt/d", hostPath: strPtr("1:/data"), field: "host_path", msg: "sandbox path grant host_path does not support UNC or device paths"},
		{path: "/mnt/d", hostPath: strPtr("srv/data"), field: "host_path", msg: "sandbox path grant host_path must be an absolute host path"},
		{path: "rel", hostPath: strPtr("srv/data"), field: "path", msg: "sandbox path grant path must be POSIX absolute"},
	}
	for _, tt := range tests {
		g, err := NewPathGrant(tt.path, true, nil, tt.hostPath)
		if tt.msg != "" {
			var ge *GrantError
			if !errors.As(err, &ge) || ge.Field != tt.field || ge.Error() != tt.msg {
				t.Errorf("NewPathGrant(%q, %v): error = %#v, want %s: %q", tt.path, tt.hostPath, err, tt.field, tt.msg)
			}
			continue
		}
		if err != nil || g.Path != tt.wantPath || !g.ReadOnly {
			t.Errorf("NewPathGrant(%q) = %+v, %v", tt.path, g, err)
			continue
		}
		if (tt.wantHost == "") != (g.HostPath == nil) || (g.HostPath != nil && *g.HostPath != tt.wantHost) {
			t.Errorf("NewPathGrant(%q, %q) host = %v, want %q", tt.path, *tt.hostPath, g.HostPath, tt.wantHost)
		}
	}
}

func TestPathGrantJSONAndHostRoot(t *testing.T) {
	g, _ := NewPathGrant("/mnt/d", false, nil, strPtr("/srv/d"))
	b, _ := json.Marshal(g)
	if string(b) != `{"path":"/mnt/d","read_only":false,"description":null,"host_path":"/srv/d"}` {
		t.Errorf("JSON = %s", b)
	}
	g2, _ := NewPathGrant("/tmp", true, strPtr("temporary files"), nil)
	b, _ = json.Marshal(g2)
	if string(b) != `{"path":"/tmp","read_only":true,"description":"temporary files"}` {
		t.Errorf("JSON = %s", b)
	}
	if g.HostRoot() != "/srv/d" || g2.HostRoot() != "/tmp" {
		t.Errorf("HostRoot = %q, %q", g.HostRoot(), g2.HostRoot())
	}
}
