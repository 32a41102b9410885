package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	providerschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Bounds on what a resource takes out of a workspace (max_bytes,
// max_files): attributes of the provider (the defaults) and of each such
// resource.

func maxBytesText(on string) string {
	return fmt.Sprintf("Most bytes %s may write on the host: data bytes, the holes of sparse files are not counted (they "+
		"are written as holes). Reaching it fails naming the file and leaves nothing partial behind.", on)
}

func maxFilesText(on string) string {
	return fmt.Sprintf("Most files %s may write on the host; more fails before anything is written.", on)
}

// providerLimitAttributes are the provider's max_bytes and max_files.
func providerLimitAttributes() map[string]providerschema.Attribute {
	return map[string]providerschema.Attribute{
		"max_bytes": providerschema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
			MarkdownDescription: maxBytesText("one export, snapshot or restore") +
				fmt.Sprintf(" The default of each resource's `max_bytes`. Default %d (10 GiB).", sandbox.DefaultMaxBytes)},
		"max_files": providerschema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
			MarkdownDescription: maxFilesText("one export, snapshot or restore") +
				fmt.Sprintf(" The default of each resource's `max_files`. Default %d.", sandbox.DefaultMaxFiles)},
	}
}

// limitAttributes are a resource's max_bytes and max_files; what describes
// the resource's operation ("this export").
func limitAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"max_bytes": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
			MarkdownDescription: maxBytesText(what) + " Default: the provider's `max_bytes` (10 GiB)."},
		"max_files": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
			MarkdownDescription: maxFilesText(what) + fmt.Sprintf(" Default: the provider's `max_files` (%d).", sandbox.DefaultMaxFiles)},
	}
}

// outputLimits are the bounds set by max_bytes and max_files, each unset
// one taken from defaults (the provider's).
func outputLimits(maxBytes, maxFiles types.Int64, defaults sandbox.OutputLimits) sandbox.OutputLimits {
	l := defaults
	if !maxBytes.IsNull() && !maxBytes.IsUnknown() {
		l.MaxBytes = maxBytes.ValueInt64()
	}
	if !maxFiles.IsNull() && !maxFiles.IsUnknown() {
		l.MaxFiles = maxFiles.ValueInt64()
	}
	return l.WithDefaults()
}
