package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	snapshotpkg "github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// engineOutputLimits are the bounds a snapshot or restore asks for: each
// unset one is the provider's default (its max_bytes and max_files).
func engineOutputLimits(eng *workspace.Engine, maxBytes, maxFiles types.Int64) sandbox.OutputLimits {
	var defaults sandbox.OutputLimits
	if eng != nil {
		defaults = eng.OutputLimits
	}
	return outputLimits(maxBytes, maxFiles, defaults)
}

// archiveLimitAttributes are the optional max_bytes and max_files of an
// operation that lays out or takes an archive (what says what they bound).
func archiveLimitAttributes(bytesWhat, filesWhat string) (maxBytes, maxFiles schema.Int64Attribute) {
	at := []validator.Int64{int64validator.AtLeast(1)}
	maxBytes = schema.Int64Attribute{Optional: true, Validators: at, MarkdownDescription: fmt.Sprintf("At most this many "+
		"bytes %s; past it the operation fails naming `max_bytes` and the path it reached. Default: the provider's "+
		"`max_bytes` (10 GiB unless set there).", bytesWhat)}
	maxFiles = schema.Int64Attribute{Optional: true, Validators: at, MarkdownDescription: fmt.Sprintf("At most this many "+
		"%s; past it the operation fails naming `max_files`. Default: the provider's `max_files` (%d unless set there).",
		filesWhat, sandbox.DefaultMaxFiles)}
	return maxBytes, maxFiles
}

// warnExcluded names every member exclude_unsafe left out of a snapshot.
func warnExcluded(ex []snapshotpkg.Excluded, diags *diag.Diagnostics) {
	if len(ex) == 0 {
		return
	}
	lines := make([]string, 0, len(ex))
	for _, e := range ex {
		lines = append(lines, fmt.Sprintf("%s: %s", e.Path, e.Reason))
	}
	diags.AddWarning("Unsafe paths left out of the snapshot",
		"exclude_unsafe = true left out what a restore would refuse:\n"+strings.Join(lines, "\n"))
}
