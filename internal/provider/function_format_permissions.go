package provider

import (
	"context"
	"fmt"
	"math/big"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/hashicorp/terraform-plugin-framework/function"
)

var _ function.Function = (*formatPermissionsFunction)(nil)

// NewFormatPermissionsFunction returns format_permissions(mode number) string.
func NewFormatPermissionsFunction() function.Function { return &formatPermissionsFunction{} }

type formatPermissionsFunction struct{}

func (f *formatPermissionsFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "format_permissions"
}

func (f *formatPermissionsFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Format a numeric mode as an ls -l permissions string",
		MarkdownDescription: "The Python SDK's `Permissions.from_mode(mode)` then its string form: the directory bit " +
			"0o040000 gives a leading `d`; setuid, setgid, sticky and other file-type bits are dropped. " +
			"`format_permissions(16877)` (0o40755) is `\"drwxr-xr-x\"`; `format_permissions(420)` (0o644) is `\"-rw-r--r--\"`. " +
			"Terraform has no octal literals: use `parseint(\"755\", 8)`. Negative or fractional numbers are refused.",
		Parameters: []function.Parameter{
			function.NumberParameter{Name: "mode", MarkdownDescription: "A numeric file mode (`st_mode`)."},
		},
		Return: function.StringReturn{},
	}
}

func (f *formatPermissionsFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var n *big.Float
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &n))
	if resp.Error != nil {
		return
	}
	mode, ok := wholeNumber(n, 0, 0xFFFFFFFF)
	if !ok {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf("mode %s is not a whole number from 0 to 4294967295", n.Text('g', -1)))
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, posix.PermissionsFromMode(uint32(mode)).String()))
}

// wholeNumber returns n as an int64 when it is a whole number in [lo, hi].
func wholeNumber(n *big.Float, lo, hi int64) (int64, bool) {
	if n == nil || !n.IsInt() {
		return 0, false
	}
	i, acc := n.Int64()
	if acc != big.Exact || i < lo || i > hi {
		return 0, false
	}
	return i, true
}
