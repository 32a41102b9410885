package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// Conformance handlers for the mount security areas: redaction helpers,
// the credential boundary and the remote-mount policy text (design/sdk-model.md §5.7,
// §5.8, §8). Vectors describe mounts in a Python-like notation such as
// "S3Mount(creds) rclone" or "GCSMount(service_account_file='/x')
// docker_volume rclone"; secParseMount reads the forms they use.

func handleMountRedactionVector(_ string, raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Fn      string     `json:"fn"`
		Value   *string    `json:"value"`
		Args    []string   `json:"args"`
		Env     [][]string `json:"env"`
		Payload any        `json:"payload"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	value := func() string {
		if in.Value == nil {
			return ""
		}
		return *in.Value
	}
	switch in.Fn {
	case "_url_contains_inline_authority":
		return mount.URLContainsInlineAuthority(value()), nil
	case "_inline_url_authority_values":
		return secNonNil(mount.InlineURLAuthorityValues(value())), nil
	case "_rclone_remote_name_is_safe":
		return mount.RemoteNameIsSafe(in.Value), nil
	case "_rclone_extra_args_analysis":
		safe, paths, invalid := mount.RcloneExtraArgsAnalysis(in.Args)
		return []any{safe, paths, invalid}, nil
	case "_render_shell_exports":
		// The env file of the mountpoint pattern: one "export NAME=<value>"
		// line per variable, each value quoted as the Python SDK's shlex.quote.
		var b strings.Builder
		for _, kv := range in.Env {
			fmt.Fprintf(&b, "export %s=%s\n", kv[0], sandbox.ShellQuote(kv[1]))
		}
		return b.String(), nil
	case "sanitize_raw_manifest_mount_authority":
		out, redacted, err := mount.SanitizeRawManifestMountAuthority(in.Payload)
		if err != nil {
			return nil, err
		}
		return []any{out, redacted}, nil
	}
	return nil, unsupported("redaction function %q", in.Fn)
}

func handleMountBoundaryVector(_ string, raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Fn        string          `json:"fn"`
		Path      string          `json:"path"`
		Payload   json.RawMessage `json:"payload"`
		Root      string          `json:"root"`
		Entries   json.RawMessage `json:"entries"`
		AckScoped []string        `json:"ack_mount_scoped"`
		AckBroad  []string        `json:"ack_broad"`
		Backend   string          `json:"backend"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	switch in.Fn {
	case "":
	case "Manifest.model_validate":
		if _, err := manifest.Parse(in.Payload); err != nil {
			return nil, err
		}
		return "ok", nil
	case "Manifest().with_in_container_mount_credential_exposure_acknowledged",
		"Manifest().with_in_container_mount_broad_credential_exposure_acknowledged":
		if err := mount.ValidateAcknowledgementPath(manifest.DefaultRoot, in.Path); err != nil {
			return nil, err
		}
		return "ok", nil
	default:
		return nil, unsupported("credential boundary function %q", in.Fn)
	}
	tree, err := secWalkEntries(in.Entries)
	if err != nil {
		return nil, err
	}
	input := mount.BoundaryInput{Root: in.Root, Backend: in.Backend,
		Ack: mount.Acknowledgements{MountScoped: in.AckScoped, Broad: in.AckBroad}}
	for _, e := range tree {
		switch {
		case e.mount != nil:
			input.Mounts = append(input.Mounts, mount.BoundaryEntry{Path: e.path, Mount: e.mount})
		case e.entryType != "dir" && (e.entryType != "local_dir" || e.hasSrc):
			input.MaterializedPaths = append(input.MaterializedPaths, e.path)
		}
	}
	if err := mount.CheckCredentialBoundary(input); err != nil {
		return nil, err
	}
	return "ok", nil
}

func handleRemoteMountPolicyVector(_ string, raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Manifest struct {
			Root      string          `json:"root"`
			Entries   json.RawMessage `json:"entries"`
			Allowlist []string        `json:"remote_mount_command_allowlist"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	root := in.Manifest.Root
	if root == "" {
		root = manifest.DefaultRoot
	}
	tree, err := secWalkEntries(in.Manifest.Entries)
	if err != nil {
		return nil, err
	}
	var targets []mount.PolicyTarget
	for _, e := range tree {
		if e.mount != nil {
			targets = append(targets, mount.PolicyTarget{Path: strings.TrimSuffix(root, "/") + "/" + e.path,
				ReadOnly: e.mount.ReadOnly})
		}
	}
	// mount_targets order: deepest first, manifest order among equals.
	sort.SliceStable(targets, func(i, j int) bool {
		return strings.Count(targets[i].Path, "/") > strings.Count(targets[j].Path, "/")
	})
	return mount.RemoteMountPolicy(targets, in.Manifest.Allowlist), nil
}

// secEntry is one entry of a vector's entry tree: a mount given in
// notation, or a JSON entry of another type.
type secEntry struct {
	path      string
	mount     *mount.Mount
	entryType string
	hasSrc    bool
}

// secWalkEntries lists a vector's entries depth first, in key order:
// string values are mounts in notation, objects are JSON entries whose
// "children" (for dirs) are walked too.
func secWalkEntries(raw json.RawMessage) ([]secEntry, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, err
	}
	return secWalkLevel(entries, "")
}

func secWalkLevel(entries map[string]json.RawMessage, parent string) ([]secEntry, error) {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []secEntry
	for _, k := range keys {
		p := k
		if parent != "" {
			p = parent + "/" + k
		}
		var notation string
		if json.Unmarshal(entries[k], &notation) == nil {
			m, err := secParseMount(notation)
			if err != nil {
				return nil, err
			}
			out = append(out, secEntry{path: p, mount: m})
			continue
		}
		var obj struct {
			Type     string                     `json:"type"`
			Src      *string                    `json:"src"`
			Children map[string]json.RawMessage `json:"children"`
		}
		if err := json.Unmarshal(entries[k], &obj); err != nil {
			return nil, err
		}
		out = append(out, secEntry{path: p, entryType: obj.Type, hasSrc: obj.Src != nil})
		if obj.Type == "dir" {
			children, err := secWalkLevel(obj.Children, p)
			if err != nil {
				return nil, err
			}
			out = append(out, children...)
		}
	}
	return out, nil
}

func secNonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
