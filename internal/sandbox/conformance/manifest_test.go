package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// exactJSON is a handler result compared byte for byte with the vector's
// expected value re-encoded in its own key order (see TestSeedVectors).
type exactJSON []byte

// exact re-encodes a JSON text the engine wrote (or one assembled from
// parts of it) as the manifest JSON is written.
func exact(b []byte) (any, error) {
	out, err := manifest.CompactJSON(b)
	if err != nil {
		return nil, err
	}
	return exactJSON(out), nil
}

// canonicalExpected re-encodes a vector's expected JSON compactly, keeping
// its key order, so that it compares with exactJSON results.
func canonicalExpected(raw json.RawMessage) ([]byte, error) { return manifest.CompactJSON(raw) }

// jsonObject joins members (as mvObject gives them) back into a JSON object.
func jsonObject(ms []mvKV) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonPath follows keys down a JSON object; a missing key gives nil.
func jsonPath(obj []byte, keys ...string) ([]byte, error) {
	for _, k := range keys {
		ms, err := mvObject(obj)
		if err != nil {
			return nil, err
		}
		obj = nil
		for _, m := range ms {
			if m.Key == k {
				obj = m.Val
			}
		}
	}
	return obj, nil
}

// manifestPart is the value under keys of the manifest's JSON.
func manifestPart(m *manifest.Manifest, keys ...string) ([]byte, error) {
	b, err := m.JSON()
	if err != nil {
		return nil, err
	}
	return jsonPath(b, keys...)
}

// patternMounts are mounts that accept each in-container pattern type,
// whose dump gives the pattern's own dump.
var patternMounts = map[string]string{
	"fuse":    `{"type": "azure_blob_mount", "account": "a", "container": "c"`,
	"s3files": `{"type": "s3_files_mount", "file_system_id": "fs-1"`,
	"rclone":  `{"type": "s3_mount", "bucket": "b"`,
}

// patternDump is pattern.model_dump(mode='json') of the pattern type p with
// its defaults, read from a mount entry that uses it.
func patternDump(p string) (json.RawMessage, error) {
	e, err := manifest.ParseEntry([]byte(patternMounts[p] + `, "mount_strategy": {"type": "in_container", "pattern": {"type": "` + p + `"}}}`))
	if err != nil {
		return nil, err
	}
	b, err := e.JSON()
	if err != nil {
		return nil, err
	}
	return jsonPath(b, "mount_strategy", "pattern")
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
		b, err := manifest.New().JSON()
		if err != nil {
			return nil, err
		}
		return exact(b)
	case "pattern.model_dump(mode='json')":
		var out []json.RawMessage
		for _, p := range []string{"fuse", "s3files", "rclone"} {
			v, err := patternDump(p)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		return exact(b)
	case "sorted(BaseEntry.registered_types())":
		return manifest.RegisteredEntryTypes(), nil
	case "SandboxPathGrant(path='/mnt/d', host_path='/srv/d').model_dump(mode='json')":
		g, err := posix.NewPathGrant("/mnt/d", false, nil, strptr("/srv/d"))
		if err != nil {
			return nil, err
		}
		m := manifest.New()
		m.ExtraPathGrants = []posix.PathGrant{g}
		b, err := manifestPart(m, "extra_path_grants")
		if err != nil {
			return nil, err
		}
		var grants []json.RawMessage
		if err := json.Unmarshal(b, &grants); err != nil {
			return nil, err
		}
		if len(grants) != 1 {
			return nil, fmt.Errorf("extra_path_grants %s: want one grant", b)
		}
		return exact(grants[0])
	}
	if strings.HasPrefix(in.Fn, "Manifest(extra_path_grants=") {
		m := manifest.New()
		for _, g := range []struct {
			path, desc string
			ro         bool
		}{{"/tmp", "temporary files", false}, {"/opt/toolchain", "compiler runtime", true}} {
			grant, err := posix.NewPathGrant(g.path, g.ro, strptr(g.desc), nil)
			if err != nil {
				return nil, err
			}
			m.ExtraPathGrants = append(m.ExtraPathGrants, grant)
		}
		return exactPart(m, "extra_path_grants")
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
	m, err := manifest.Parse(payload)
	if err != nil {
		return nil, err
	}
	switch caseName {
	case "mount strategies dump":
		return exactPart(m, "entries")
	case "provider mount field sets":
		return mountFieldSets(m)
	case "Path keys serialize posix":
		b, err := manifestPart(m, "entries")
		if err != nil {
			return nil, err
		}
		ms, err := mvObject(b)
		keys := make([]string, 0, len(ms))
		for _, e := range ms {
			keys = append(keys, e.Key)
		}
		return keys, err
	case "legacy discriminator-free env values":
		return exactPart(m, "environment")
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
		b, err := m.Entries[0].Entry.JSON()
		if err != nil {
			return nil, err
		}
		return exact(b)
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

// exactPart is exact of the value under keys of the manifest's JSON.
func exactPart(m *manifest.Manifest, keys ...string) (any, error) {
	b, err := manifestPart(m, keys...)
	if err != nil {
		return nil, err
	}
	return exact(b)
}

// mountFieldSets is every entry's dump without the fields all mounts share,
// keyed as in the manifest.
func mountFieldSets(m *manifest.Manifest) (any, error) {
	var out []mvKV
	for _, ke := range m.Entries {
		b, err := ke.Entry.JSON()
		if err != nil {
			return nil, err
		}
		ms, err := mvObject(b)
		if err != nil {
			return nil, err
		}
		var own []mvKV
		for _, f := range ms {
			switch f.Key {
			case "description", "group", "permissions", "mount_strategy":
			default:
				own = append(own, f)
			}
		}
		out = append(out, mvKV{Key: ke.Key, Val: jsonObject(own)})
	}
	return exact(jsonObject(out))
}
