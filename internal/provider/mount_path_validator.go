package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// mountPathValidator refuses Windows paths in mount_path at plan time (the
// Python SDK's `absolute` reason); other checks need the workspace root.
type mountPathValidator struct{}

func (mountPathValidator) Description(context.Context) string {
	return "must be a POSIX path (relative to the root, or absolute)"
}

func (v mountPathValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (mountPathValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := (mountPathValidator{}).problem(req.ConfigValue.ValueString()); err != nil {
		addEngineAttributeError(&resp.Diagnostics, req.Path, "Invalid mount_path", err)
	}
}

// problem returns what is wrong with a mount_path on its own, or nil.
func (mountPathValidator) problem(raw string) error {
	if _, err := mount.ResolveMountPath("/workspace", &raw, "/workspace"); err != nil {
		return err
	}
	if raw == "" || strings.ContainsRune(raw, 0) {
		return fmt.Errorf("mount_path %q must be a non-empty path", raw)
	}
	return nil
}
