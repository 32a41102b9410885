package conformance

import (
	"encoding/json"
	"regexp"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// Conformance handlers for the Python SDK's snapshot vectors: tar member
// skipping, local snapshot paths and the manifest digest of the workspace
// fingerprint.

// reLocalSnapshotPath matches LocalSnapshot(id, base_path='<base>')._path()
// and LocalSnapshot(id, base_path)._path() (base_path then in the input).
var reLocalSnapshotPath = regexp.MustCompile(`^LocalSnapshot\(id, base_path(?:='([^']*)')?\)\._path\(\)$`)

func handleSnapshotVector(raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Fn           string   `json:"fn"`
		Member       string   `json:"member"`
		SkipRelPaths []string `json:"skip_rel_paths"`
		RootName     *string  `json:"root_name"`
		ID           string   `json:"id"`
		BasePath     *string  `json:"base_path"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	const digestFn = "sha256(json.dumps(Manifest().model_dump(mode='json'), sort_keys=True, separators=(',',':')))"
	if in.Fn == "should_skip_tar_member" {
		root := ""
		if in.RootName != nil {
			root = *in.RootName
		}
		return snapshot.ShouldSkipTarMember(in.Member, in.SkipRelPaths, root), nil
	}
	if m := reLocalSnapshotPath.FindStringSubmatch(in.Fn); m != nil {
		base := m[1]
		if in.BasePath != nil {
			base = *in.BasePath
		}
		return snapshot.LocalPath(base, in.ID)
	}
	if in.Fn == digestFn {
		j, err := manifest.New().JSON()
		if err != nil {
			return nil, err
		}
		return snapshot.ManifestDigest(j)
	}
	return nil, unsupported("snapshot function %q", in.Fn)
}
