package manifest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func TestDecodeEntriesKeepsOrder(t *testing.T) {
	es, err := DecodeEntries([]byte(`{
		"root": "/w",
		"entries": {
			"zeta": {"type": "file", "content": "z"},
			"alpha": {"type": "dir", "children": {
				"b.txt": {"type": "file", "content": "b"},
				"a.txt": {"type": "file", "content": "a", "ephemeral": true}
			}},
			"mnt": {"type": "s3_mount", "bucket": "b", "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}},
			"zeta": {"type": "local_dir", "ephemeral": "yes"}
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, ke := range es {
		keys = append(keys, ke.Key)
	}
	if !reflect.DeepEqual(keys, []string{"zeta", "alpha", "mnt"}) {
		t.Fatalf("keys = %v", keys)
	}
	// A repeated key keeps its first position and its last value.
	if es[0].Entry.Type != "local_dir" || !es[0].Entry.Ephemeral {
		t.Errorf("zeta = %+v", es[0].Entry)
	}
	if !es[2].Entry.Ephemeral {
		t.Error("mounts default to ephemeral")
	}
	list, err := es.ValidatedEntries()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, ep := range list {
		paths = append(paths, ep.Path)
	}
	if want := []string{"zeta", "alpha", "alpha/b.txt", "alpha/a.txt", "mnt"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("paths = %v, want %v", paths, want)
	}
	eph, err := es.EphemeralEntryPaths()
	if err != nil || !reflect.DeepEqual(eph, []string{"alpha/a.txt", "mnt", "zeta"}) {
		t.Errorf("ephemeral = %v, %v", eph, err)
	}
}

func TestDecodeEntriesErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"entries": []}`, "Artifact mapping must be a mapping, got list"},
		{`{"entries": {"x": "file"}}`, "Artifact entry must be a BaseEntry or mapping, got str"},
		{`{"entries": {"x": 3}}`, "Artifact entry must be a BaseEntry or mapping, got int"},
		{`{"entries": {"x": null}}`, "Artifact entry must be a BaseEntry or mapping, got NoneType"},
		{`{"entries": {"x": {"content": "a"}}}`, "entries: Value error, Artifact entry mapping must include a string `type` field"},
		{`{"entries": {"x": {"type": 1}}}`, "entries: Value error, Artifact entry mapping must include a string `type` field"},
		{`{"entries": {"x": {"type": "symlink"}}}`, "entries: Value error, Unknown artifact type `symlink`. Registered types: azure_blob_mount, box_mount, dir, file, gcs_mount, git_repo, local_dir, local_file, r2_mount, s3_files_mount, s3_mount"},
		{`{"entries": {"d": {"type": "dir", "children": 1.5}}}`, "Artifact mapping must be a mapping, got float"},
		{`{"entries": {"f": {"type": "file", "ephemeral": "maybe"}}}`, "entries.ephemeral: Input should be a valid boolean, unable to interpret input"},
		{`{"entries": {"f": {"type": "file", "ephemeral": []}}}`, "entries.ephemeral: Input should be a valid boolean"},
	}
	for _, tt := range tests {
		_, err := DecodeEntries([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error = %v, want %q", tt.in, err, tt.want)
		}
	}
	for _, in := range []string{`{"entries": null}`, `{}`, `{"entries": {"d": {"type": "dir", "children": null}}}`} {
		if _, err := DecodeEntries([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestValidatedEntriesErrors(t *testing.T) {
	tests := []struct {
		name, in, rel, reason string
	}{
		{"nested escape", `{"entries": {"safe": {"type": "dir", "children": {"../outside.txt": {"type": "file", "content": "x"}}}}}`, "safe/../outside.txt", sandbox.ReasonEscapeRoot},
		{"nested absolute", `{"entries": {"safe": {"type": "dir", "children": {"/tmp/outside.txt": {"type": "file", "content": "x"}}}}}`, "/tmp/outside.txt", sandbox.ReasonAbsolute},
		{"windows key", `{"entries": {"C:\\tmp\\outside.txt": {"type": "file", "content": "x"}}}`, "C:/tmp/outside.txt", sandbox.ReasonAbsolute},
		{"nested windows key", `{"entries": {"safe": {"type": "dir", "children": {"d:/x": {"type": "file", "content": "x"}}}}}`, "d:/x", sandbox.ReasonAbsolute},
		{"drive-like parent", `{"entries": {"a:": {"type": "dir", "children": {"b": {"type": "file", "content": "x"}}}}}`, "a:/b", sandbox.ReasonAbsolute},
		// Top-level Windows keys are checked before anything is walked.
		{"windows key after escape", `{"entries": {"../x": {"type": "file", "content": "x"}, "C:/y": {"type": "file", "content": "x"}}}`, "C:/y", sandbox.ReasonAbsolute},
		{"first error in walk order", `{"entries": {"ok": {"type": "dir", "children": {"../a": {"type": "file", "content": "x"}}}, "/b": {"type": "file", "content": "x"}}}`, "ok/../a", sandbox.ReasonEscapeRoot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := DecodeEntries([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			_, err = es.ValidatedEntries()
			if want := sandbox.NewInvalidManifestPathError(tt.rel, tt.reason); !reflect.DeepEqual(err, want) {
				t.Fatalf("error = %#v, want %#v", err, want)
			}
		})
	}
}

func TestIterEntries(t *testing.T) {
	es, err := DecodeEntries([]byte(`{"entries": {
		"": {"type": "file", "content": "x"},
		"a\\b": {"type": "dir", "children": {"": {"type": "file", "content": "x"}, "./c//d": {"type": "file", "content": "x"}}},
		"f": {"type": "file", "content": "x", "children": {"../ignored": {"type": "file", "content": "x"}}}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = es.IterEntries(func(rel string, e *Entry) error {
		got = append(got, rel+":"+e.Type)
		return nil
	})
	want := []string{".:file", "a/b:dir", "a/b:file", "a/b/c/d:file", "f:file"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	stop := errors.New("stop")
	n := 0
	err = es.IterEntries(func(string, *Entry) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("yield error: %v after %d", err, n)
	}
}

func TestEntryTypeKinds(t *testing.T) {
	for _, tt := range []struct {
		t          string
		dir, mount bool
	}{
		{"file", false, false}, {"local_file", false, false},
		{"dir", true, false}, {"local_dir", true, false}, {"git_repo", true, false},
		{"s3_mount", true, true}, {"box_mount", true, true}, {"s3_files_mount", true, true},
		{"symlink", false, false},
	} {
		if IsDirectoryEntryType(tt.t) != tt.dir || IsMountEntryType(tt.t) != tt.mount {
			t.Errorf("%s: dir=%v mount=%v", tt.t, IsDirectoryEntryType(tt.t), IsMountEntryType(tt.t))
		}
	}
	if got := RegisteredEntryTypes(); len(got) != 11 || got[0] != "azure_blob_mount" || got[10] != "s3_mount" {
		t.Errorf("RegisteredEntryTypes = %v", got)
	}
}

func TestDefaultEntryPermissions(t *testing.T) {
	for typ, want := range map[string]string{"dir": "drwxr-xr-x", "s3_mount": "drwxr-xr-x", "file": "-rwxr-xr-x"} {
		if got := DefaultEntryPermissions(typ).String(); got != want {
			t.Errorf("%s default = %q, want %q", typ, got, want)
		}
	}
}
