package mount_test

import (
	"errors"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

func wantPathError(t *testing.T, err error, reason, rel string) {
	t.Helper()
	var se *sandbox.Error
	if !errors.As(err, &se) || se.Code != sandbox.CodeInvalidManifestPath || se.Reason() != reason || se.Context["rel"] != rel {
		t.Fatalf("got %#v, want invalid_manifest_path %s %q", err, reason, rel)
	}
}

func TestResolveMountPath(t *testing.T) {
	tests := []struct {
		mountPath *string
		dest      string
		want      string
	}{
		{nil, "/workspace/data/", "/workspace/data"},
		{nil, "/workspace", "/workspace"},
		{nil, "/other/x", "/other/x"},
		{nil, "nested/./x", "/workspace/nested/x"},
		{sp("rel/../x"), "/workspace/ignored", "/workspace/rel/../x"},
		{sp("/mnt//data/"), "/workspace/ignored", "/mnt/data"},
		{sp(`a\b`), "/workspace/ignored", `/workspace/a\b`},
	}
	for _, tt := range tests {
		got, err := mount.ResolveMountPath(`\workspace`, tt.mountPath, tt.dest)
		if err != nil || got != tt.want {
			t.Errorf("ResolveMountPath(%v, %q) = %q, %v; want %q", deref(tt.mountPath), tt.dest, got, err, tt.want)
		}
	}
	_, err := mount.ResolveMountPath("/workspace", sp(`C:\data\x`), "/workspace/d")
	wantPathError(t, err, sandbox.ReasonAbsolute, "C:/data/x")
}

func TestNormalizeMountTarget(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/workspace/repo/../actual", "/workspace/actual"},
		{"/workspace/a/..", "/workspace"},
		{"/workspace", "/workspace"},
		{"/mnt/../etc", "/mnt/../etc"},
		{"rel/./x/../y", "/workspace/rel/y"},
	} {
		if got, err := mount.NormalizeMountTarget("/workspace", tt.in); err != nil || got != tt.want {
			t.Errorf("NormalizeMountTarget(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	_, err := mount.NormalizeMountTarget("/workspace", "/workspace/../tmp")
	wantPathError(t, err, sandbox.ReasonEscapeRoot, "/workspace/../tmp")
	_, err = mount.NormalizeMountTarget("/workspace", "../up")
	wantPathError(t, err, sandbox.ReasonEscapeRoot, "../up")
}

func TestSortTargetsDeepestFirstStable(t *testing.T) {
	ts := []mount.Target{{Key: "a", Path: "/w/a"}, {Key: "b", Path: "/w/b/c"}, {Key: "c", Path: "/w/c"}, {Key: "d", Path: "/"}}
	mount.SortTargets(ts)
	got := ""
	for _, t := range ts {
		got += t.Key
	}
	if got != "bacd" {
		t.Errorf("order %q, want bacd", got)
	}
}
