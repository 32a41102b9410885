package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// replaceIfPathMoves replaces an entry only when its path names another
// place: a change of spelling alone ("a.txt" to "./a.txt", "a//a.txt" or
// "a.txt/") is an in-place update that writes nothing new. Replacing the
// entry there would give the new and the old object the same id and the
// same file, and under create_before_destroy the old object's destroy
// would delete the file the new one had just written.
func replaceIfPathMoves() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
		if req.StateValue.IsNull() || req.PlanValue.IsUnknown() {
			resp.RequiresReplace = true
			return
		}
		before, errBefore := posix.ValidateEntryPath(req.StateValue.ValueString())
		after, errAfter := posix.ValidateEntryPath(req.PlanValue.ValueString())
		resp.RequiresReplace = errBefore != nil || errAfter != nil || before != after
	}, pathReplaceDesc, pathReplaceDesc)
}

const pathReplaceDesc = "Changing the path to another place replaces the entry; a change of spelling only (`./a.txt` for `a.txt`) updates it in place."

// filePathValidator refuses a file path that ends as a directory path
// ("x/", "x\\", "x/."): the Python SDK would drop the trailing separator and
// write a file where the configuration reads as a directory.
var filePathValidator = stringRule{"must not end with a path separator", "Invalid file path", func(raw string) string {
	if !endsAsDirectory(raw) {
		return ""
	}
	return fmt.Sprintf("path %s ends with a separator, so it names a directory; a file path ends with the file's name (%s)",
		sandbox.QuoteText(raw), sandbox.QuoteText(strings.TrimRight(strings.TrimSuffix(raw, "."), "/\\")))
}}

// endsAsDirectory reports whether a path ends with "/" or "\\" (the Python SDK
// reads backslashes as separators), optionally followed by ".".
func endsAsDirectory(p string) bool {
	p = strings.TrimSuffix(p, ".")
	return strings.HasSuffix(p, "/") || strings.HasSuffix(p, "\\")
}
