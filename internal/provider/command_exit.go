package provider

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// expectExitCodesValidators bound expect_exit_codes: at least one code,
// each an exit status (0 to 255), none twice.
func expectExitCodesValidators() []validator.List {
	return []validator.List{
		listvalidator.SizeAtLeast(1),
		listvalidator.UniqueValues(),
		listvalidator.ValueInt64sAre(int64validator.Between(0, 255)),
	}
}

// accepts reports whether code counts as the command's result:
// allow_non_zero_exit_code accepts any, else expect_exit_codes (default
// [0]) lists them. It also returns the accepted codes as text for errors.
func (m *commandModel) accepts(ctx context.Context, code int, diags *diag.Diagnostics) (bool, string) {
	if m.AllowNonZeroExitCode.ValueBool() {
		return true, "any"
	}
	want := []int64{0}
	if !m.ExpectExitCodes.IsNull() && !m.ExpectExitCodes.IsUnknown() {
		want = nil
		diags.Append(m.ExpectExitCodes.ElementsAs(ctx, &want, false)...)
	}
	text := make([]string, len(want))
	for i, w := range want {
		text[i] = strconv.FormatInt(w, 10)
	}
	shown := strings.Join(text, " or ")
	return slices.Contains(want, int64(code)), shown
}
