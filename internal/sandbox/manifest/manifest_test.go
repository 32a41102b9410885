package manifest

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

func TestManifestRoundTrip(t *testing.T) {
	in := `{"root":"/w","entries":{"b":{"type":"dir","children":{"x.txt":{"type":"file","content":"hi\n","group":{"name":"g","users":[{"name":"u"}]}}}},` +
		`"a":{"type":"local_dir","src":"skills","permissions":{"owner":7,"group":5}},"g":{"type":"git_repo","repo":"o/r","ref":"main"}},` +
		`"environment":{"value":{"A":"plain","B":{"type":"str","value":"v"}}},"users":[{"name":"u"}],"groups":[{"name":"g","users":[{"name":"u"}]}]}`
	m, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	first, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Parse(first)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := m2.JSON()
	if string(first) != string(second) {
		t.Fatalf("not stable:\n%s\n%s", first, second)
	}
	for _, want := range []string{
		`"entries":{"b":{"type":"dir","description":null,"ephemeral":false,"group":null,"is_dir":true,"permissions":{"owner":7,"group":5,"other":5,"directory":true},"children":{"x.txt":`,
		`"group":{"name":"g","users":[{"name":"u"}]},"is_dir":false`,
		`"a":{"type":"local_dir","description":null,"ephemeral":false,"group":null,"is_dir":true,"permissions":{"owner":7,"group":5,"other":0,"directory":true},"src":"skills"}`,
		`"host":"github.com","repo":"o/r","ref":"main","subpath":null`,
		`"environment":{"value":{"A":"plain","B":{"type":"str","value":"v"}}}`,
	} {
		if !strings.Contains(string(first), want) {
			t.Errorf("dump lacks %s\n%s", want, first)
		}
	}
	ind, err := m.IndentedJSON()
	if err != nil || !strings.HasPrefix(string(ind), "{\n  \"version\": 1,\n  \"root\": \"/w\",") {
		t.Errorf("indented: %v\n%s", err, ind)
	}
}

func TestManifestErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"version": 2}`, "version: Input should be 1"},
		{`{"in_container_mount_credential_exposure_acknowledged_paths": []}`, MsgCredentialAckInInput},
		{`{"inContainerMountBroadCredentialExposureAcknowledgedPaths": []}`, MsgCredentialAckInInput},
		{`{"_mount_credential_exposure_policy": {}}`, MsgCredentialAckInInput},
		{`{"entries": {"m": {"type": "r2_mount", "bucket": "b", "account_id": "a", "mount_strategy": {"type": "in_container", "pattern": {"type": "mountpoint"}}}}}`, "invalid mount_pattern type"},
		{`{"entries": {"m": {"type": "s3_mount", "bucket": "b", "mount_strategy": {"type": "docker_volume", "driver": "local"}}}}`, "invalid Docker volume driver"},
		{`{"entries": {"m": {"type": "s3_mount", "bucket": "b", "mount_strategy": {"type": "in_container"}}}}`, "entries.mount_strategy.pattern: Field required"},
		{`{"entries": {"m": {"type": "s3_mount", "bucket": "b", "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone", "mode": "smb"}}}}}`, "entries.mount_strategy.pattern.mode: Input should be 'fuse' or 'nfs'"},
		{`{"entries": {"f": {"type": "file"}}}`, "entries.content: Field required"},
		{`{"entries": {"d": {"type": "dir", "children": {"x": {"type": "nope"}}}}}`, "entries.children: Value error, Unknown artifact type `nope`."},
		{`{"extra_path_grants": [{"path": "tmp"}]}`, "extra_path_grants.path: Value error, sandbox path grant path must be POSIX absolute"},
		{`[]`, "Input should be a valid dictionary or instance of Manifest"},
	} {
		_, err := Parse([]byte(tt.in))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestNewEntryMatchesParsed(t *testing.T) {
	desc := "notes"
	e, err := NewEntry("file", EntryCommon{Description: &desc, Group: "staff", Permissions: posix.Permissions{Owner: 6, Group: 4}},
		map[string]any{"content": "héllo\x01"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"file","description":"notes","ephemeral":false,"group":{"name":"staff"},"is_dir":false,` +
		`"permissions":{"owner":6,"group":4,"other":0,"directory":false},"content":"héllo\u0001"}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	d, err := NewEntry("dir", EntryCommon{Permissions: posix.Permissions{Owner: 7}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := d.JSON(); !strings.HasSuffix(string(b), `"permissions":{"owner":7,"group":0,"other":0,"directory":true},"children":{}}`) {
		t.Errorf("dir: %s", b)
	}
	bin, _ := NewEntry("file", EntryCommon{}, map[string]any{"content": "\xff"})
	if _, err := bin.JSON(); !errors.Is(err, ErrNotUTF8) {
		t.Errorf("binary content: %v", err)
	}
}

// TestCompactJSONKeepsOrder proves the conformance byte comparison sees key
// order: the same object with two keys swapped does not compare equal.
func TestCompactJSONKeepsOrder(t *testing.T) {
	a, _ := CompactJSON([]byte(`{"a": 1, "b": [true, null]}`))
	b, _ := CompactJSON([]byte(`{"b": [true, null], "a": 1}`))
	if string(a) == string(b) || string(a) != `{"a":1,"b":[true,null]}` {
		t.Fatalf("%s vs %s", a, b)
	}
}
