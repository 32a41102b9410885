package conformance

import (
	"encoding/json"
	"os"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// handleDockerBackendVector runs the Docker backend's path grant checks
// (design/sdk-model.md §6.2) on a manifest's extra_path_grants, root
// /workspace; a host_path of "<dir>" is an existing directory. Other
// Docker backend cases (container arguments, image pulls, ports) report
// unsupported.
func handleDockerBackendVector(caseName string, input json.RawMessage, _ any) (any, error) {
	var in struct {
		Manifest struct {
			Grants []struct {
				Path     string  `json:"path"`
				ReadOnly bool    `json:"read_only"`
				HostPath *string `json:"host_path"`
			} `json:"extra_path_grants"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal(input, &in); err != nil || len(in.Manifest.Grants) == 0 {
		return nil, unsupported("case %q has no path grants", caseName)
	}
	var grants []sandbox.PathGrant
	for _, g := range in.Manifest.Grants {
		if g.HostPath != nil && *g.HostPath == "<dir>" {
			dir := os.TempDir()
			g.HostPath = &dir
		}
		grant, err := sandbox.NewPathGrant(g.Path, g.ReadOnly, nil, g.HostPath)
		if err != nil {
			return nil, err
		}
		grants = append(grants, grant)
	}
	if err := workspace.CheckDockerGrants(workspace.DefaultDockerRoot, grants, nil, nil); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}
