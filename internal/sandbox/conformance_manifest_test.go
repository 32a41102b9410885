package sandbox

import (
	"encoding/json"
	"fmt"
	"strings"
)

// exactJSON is a handler result compared byte for byte with the vector's
// expected value re-encoded in its own key order (see TestSeedVectors).
type exactJSON []byte

func exact(v any) (any, error) {
	b, err := encodeCompact(v)
	if err != nil {
		return nil, err
	}
	return exactJSON(b), nil
}

// canonicalExpected re-encodes a vector's expected JSON compactly, keeping
// its key order, so that it compares with exactJSON results.
func canonicalExpected(raw json.RawMessage) ([]byte, error) {
	v, err := decodeOrderedJSON(raw)
	if err != nil {
		return nil, err
	}
	return encodeCompact(v)
}

// manifestJSONInputs expresses the vectors whose input is a Python
// construction as the equivalent JSON payload (the Python SDK objects the
// vector's test builds), keyed by case.
var manifestJSONInputs = map[string]string{
	"mount strategies dump": `{"entries": {
		"in-container": {"type": "s3_mount", "bucket": "bucket",
			"mount_strategy": {"type": "in_container", "pattern": {"type": "mountpoint"}}},
		"docker-volume": {"type": "s3_mount", "bucket": "bucket",
			"mount_strategy": {"type": "docker_volume", "driver": "rclone", "driver_options": {"vfs-cache-mode": "off"}}}}}`,
	"provider mount field sets": `{"entries": {
		"gcs": {"type": "gcs_mount", "bucket": "b", "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}},
		"r2": {"type": "r2_mount", "bucket": "b", "account_id": "a", "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}},
		"az": {"type": "azure_blob_mount", "account": "a", "container": "c", "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}},
		"box": {"type": "box_mount", "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}},
		"s3f": {"type": "s3_files_mount", "file_system_id": "fs-1", "mount_strategy": {"type": "in_container", "pattern": {"type": "s3files"}}}}}`,
	"Path keys serialize posix": `{"entries": {"a/b.txt": {"type": "file", "content": "x"}}}`,
}

func handleManifestJSONVector(raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Fn string `json:"fn"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	switch in.Fn {
	case "Manifest().model_dump(mode='json')":
		return exact(NewManifest().object())
	case "pattern.model_dump(mode='json')":
		var out []any
		for _, p := range []string{"fuse", "s3files", "rclone"} {
			v, err := parseStrategy(newObject().set("type", p), []string{"pattern"}, &fieldCtx{})
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return exact(out)
	case "sorted(BaseEntry.registered_types())":
		return RegisteredEntryTypes(), nil
	case "SandboxPathGrant(path='/mnt/d', host_path='/srv/d').model_dump(mode='json')":
		g, err := NewPathGrant("/mnt/d", false, nil, strptr("/srv/d"))
		if err != nil {
			return nil, err
		}
		m := NewManifest()
		m.ExtraPathGrants = []PathGrant{g}
		return exact(m.object().get("extra_path_grants").([]any)[0])
	}
	if strings.HasPrefix(in.Fn, "Manifest(extra_path_grants=") {
		m := NewManifest()
		for _, g := range []struct {
			path, desc string
			ro         bool
		}{{"/tmp", "temporary files", false}, {"/opt/toolchain", "compiler runtime", true}} {
			grant, err := NewPathGrant(g.path, g.ro, strptr(g.desc), nil)
			if err != nil {
				return nil, err
			}
			m.ExtraPathGrants = append(m.ExtraPathGrants, grant)
		}
		return exact(m.object().get("extra_path_grants"))
	}
	return nil, unsupported("fn %q", in.Fn)
}

func strptr(s string) *string { return &s }

// handleManifestPayloadVector runs the vectors that validate a JSON
// payload (or a payload the case's construction is expressed as).
func handleManifestPayloadVector(caseName string, raw json.RawMessage, expected any) (any, error) {
	var in struct {
		Fn      string          `json:"fn"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	payload := []byte(in.Payload)
	if p, ok := manifestJSONInputs[caseName]; ok {
		payload = []byte(p)
	}
	if len(payload) == 0 {
		return handleManifestJSONVector(raw, expected)
	}
	m, err := ParseManifestJSON(payload)
	if err != nil {
		return nil, err
	}
	switch caseName {
	case "mount strategies dump":
		return exact(m.Entries.object())
	case "provider mount field sets":
		out := newObject()
		for _, ke := range m.Entries {
			o := ke.Entry.object()
			trimmed := newObject()
			for _, k := range o.keys {
				switch k {
				case "description", "group", "permissions", "mount_strategy":
				default:
					trimmed.set(k, o.vals[k])
				}
			}
			out.set(ke.Key, trimmed)
		}
		return exact(out)
	case "Path keys serialize posix":
		return m.Entries.object().keys, nil
	case "legacy discriminator-free env values":
		return exact(m.object().get("environment"))
	case "unknown top-level keys ignored":
		return m.Root, nil
	case "file content from JSON string":
		s, _ := m.Entries[0].Entry.StringField("content")
		bytes := make([]int, 0, len(s))
		for i := 0; i < len(s); i++ {
			bytes = append(bytes, int(s[i]))
		}
		return bytes, nil
	case "dir with is_dir false input keeps directory perms":
		return exact(m.Entries[0].Entry.object())
	case "group field accepts User or Group shape":
		out := map[string]string{}
		for _, ke := range m.Entries {
			kind := "User"
			if ke.Entry.Group != nil && ke.Entry.Group.IsGroup {
				kind = "Group"
			}
			out[ke.Key] = kind
		}
		return out, nil
	}
	return nil, unsupported("case %q: %s", caseName, fmt.Sprint(in.Fn))
}
