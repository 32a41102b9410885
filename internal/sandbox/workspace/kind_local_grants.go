package workspace

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
)

// CheckLocalGrants refuses the path grants a local workspace cannot have:
// one with a host_path, which the Python SDK refuses on a local workspace
// (design/sdk-model.md §6.3), as the workspace is the host itself. A
// problem is a *GrantError.
func CheckLocalGrants(grants []posix.PathGrant) error {
	for i, g := range grants {
		if g.HostPath != nil {
			return &spec.GrantError{Index: i, Field: "host_path", Reason: "a local workspace does not support host_path for '" +
				g.Path + "' (the Python SDK refuses it too): omit host_path when both paths are the same, or use a docker workspace"}
		}
	}
	return nil
}
