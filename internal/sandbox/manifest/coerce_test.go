package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// The Python SDK validates manifest input with pydantic in lax mode: the
// number and bool fields the provider reads accept the JSON values below.
func TestPermissionsLaxCoercion(t *testing.T) {
	tests := []struct {
		perms string
		mode  uint32 // want: the permission bits of the entry's mode
	}{
		{`{"owner": true, "group": 5, "other": 5}`, 0o155},
		{`{"owner": false, "group": true, "other": false}`, 0o010},
		{`{"owner": 7.0, "group": 5.0, "other": 0.0}`, 0o750},
		{`{"owner": 6e0, "group": 4, "other": 4}`, 0o644},
		{`{"owner": "7", "group": "5", "other": "5"}`, 0o755},
		{`{"owner": " 6 ", "group": "+4", "other": "0"}`, 0o640},
		{`{"owner": "7.0", "group": "5.", "other": "0.000"}`, 0o750},
		{`{"owner": "0_7", "group": "0", "other": "0"}`, 0o700},
		{`{"owner": 6, "directory": "yes"}`, 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.perms, func(t *testing.T) {
			m, err := Parse([]byte(`{"entries": {"f": {"type": "file", "content": "x", "permissions": ` + tt.perms + `}}}`))
			if err != nil {
				t.Fatal(err)
			}
			p := m.Entries[0].Entry.Permissions
			if got := p.ToMode() & 0o777; got != tt.mode {
				t.Errorf("mode = %04o, want %04o", got, tt.mode)
			}
		})
	}
}

func TestLaxFieldRefusals(t *testing.T) {
	const loc = "entries.permissions.owner: "
	tests := []struct{ field, value, want string }{
		{"owner", `7.5`, loc + MsgIntFromFloat},
		{"owner", `-0.5`, loc + MsgIntFromFloat},
		{"owner", `"7.5"`, loc + MsgIntParsing},
		{"owner", `"seven"`, loc + MsgIntParsing},
		{"owner", `""`, loc + MsgIntParsing},
		{"owner", `"1__0"`, loc + MsgIntParsing},
		{"owner", `"_1"`, loc + MsgIntParsing},
		{"owner", `null`, loc + MsgIntType},
		{"owner", `[7]`, loc + MsgIntType},
		{"owner", `{}`, loc + MsgIntType},
		{"owner", `1e300`, loc + MsgIntParsingMax},
		{"owner", `1e400`, loc + MsgFiniteNumber},
		{"directory", `"maybe"`, "entries.permissions.directory: " + MsgBoolParsing},
		{"directory", `2`, "entries.permissions.directory: " + MsgBoolParsing},
		{"directory", `0.5`, "entries.permissions.directory: " + MsgBoolParsing},
		{"directory", `" true"`, "entries.permissions.directory: " + MsgBoolParsing},
		{"directory", `null`, "entries.permissions.directory: " + MsgBoolType},
		{"directory", `[]`, "entries.permissions.directory: " + MsgBoolType},
	}
	for _, tt := range tests {
		t.Run(tt.field+"="+tt.value, func(t *testing.T) {
			_, err := Parse([]byte(fmt.Sprintf(`{"entries": {"f": {"type": "file", "content": "x", "permissions": {%q: %s}}}}`, tt.field, tt.value)))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

// Other number and bool fields: the common entry flags, grant read_only and
// the blobfuse pattern's numbers.
func TestLaxOtherFields(t *testing.T) {
	m, err := Parse([]byte(`{"entries": {
		"f": {"type": "file", "content": "x", "ephemeral": "yes", "is_dir": 0},
		"m": {"type": "azure_blob_mount", "account": "a", "container": "c", "read_only": "false",
			"mount_strategy": {"type": "in_container", "pattern": {"type": "fuse", "allow_other": "no",
				"cache_size_mb": "100", "block_cache_block_size_mb": 32.0, "attr_cache_timeout_sec": true}}}},
		"extra_path_grants": [{"path": "/data", "read_only": "on"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Entries[0].Entry
	if !f.Ephemeral || f.IsDir {
		t.Errorf("file: ephemeral %v is_dir %v, want true false", f.Ephemeral, f.IsDir)
	}
	if !m.ExtraPathGrants[0].ReadOnly {
		t.Error("grant read_only \"on\" should be true")
	}
	b, err := m.Entries[1].Entry.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"read_only":false`, `"allow_other":false`, `"cache_size_mb":100,`,
		`"block_cache_block_size_mb":32,`, `"attr_cache_timeout_sec":1,`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("mount dump lacks %s: %s", want, b)
		}
	}
	_, err = Parse([]byte(`{"entries": {"m": {"type": "azure_blob_mount", "account": "a", "container": "c",
		"mount_strategy": {"type": "in_container", "pattern": {"type": "fuse", "cache_size_mb": 1.5}}}}}`))
	if want := "entries.mount_strategy.pattern.cache_size_mb: " + MsgIntFromFloat; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	// The manifest version stays Literal[1]: true is not 1 there.
	if _, err := Parse([]byte(`{"version": true}`)); err == nil || err.Error() != "version: Input should be 1" {
		t.Errorf("version true: error = %v", err)
	}
}
