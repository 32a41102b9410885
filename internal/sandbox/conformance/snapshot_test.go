package conformance

import (
	"encoding/json"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
)

// Conformance handlers for the Python SDK's snapshot vectors: tar member
// skipping, local snapshot paths and the manifest digest of the workspace
// fingerprint.

func handleSnapshotVector(raw json.RawMessage, _ any) (any, error) {
	var in struct {
		Fn           string   `json:"fn"`
		Member       string   `json:"member"`
		SkipRelPaths []string `json:"skip_rel_paths"`
		RootName     *string  `json:"root_name"`
		ID           string   `json:"id"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	switch in.Fn {
	case "should_skip_tar_member":
		root := ""
		if in.RootName != nil {
			root = *in.RootName
		}
		return snapshot.ShouldSkipTarMember(in.Member, in.SkipRelPaths, root), nil
	case "LocalSnapshot(id, base_path='/snaps')._path()":
		return snapshot.LocalPath("/snaps", in.ID)
	case "sha256(json.dumps(Manifest().model_dump(mode='json'), sort_keys=True, separators=(',',':')))":
		j, err := manifest.New().JSON()
		if err != nil {
			return nil, err
		}
		return snapshot.ManifestDigest(j)
	}
	return nil, unsupported("snapshot function %q", in.Fn)
}
