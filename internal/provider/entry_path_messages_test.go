package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func validateEntryPath(t *testing.T, raw string) *validator.StringResponse {
	t.Helper()
	resp := &validator.StringResponse{}
	entryPathValidator{}.ValidateString(context.Background(), validator.StringRequest{
		Path: path.Root("path"), ConfigValue: types.StringValue(raw),
	}, resp)
	return resp
}

// A ".." that stays inside the root is refused with the Python SDK's reason
// and message, and the detail says the SDK refuses every ".." segment.
func TestEntryPath_dotDotInsideSaysWhy(t *testing.T) {
	resp := validateEntryPath(t, "notes/../evil")
	if resp.Diagnostics.ErrorsCount() != 1 {
		t.Fatalf("want one error, got %v", resp.Diagnostics)
	}
	d := resp.Diagnostics.Errors()[0].Detail()
	for _, want := range []string{"manifest path must not escape root: notes/../evil", "escape_root",
		`The Python SDK refuses every ".." segment`, `write the path without ".." ("evil")`} {
		if !strings.Contains(d, want) {
			t.Errorf("detail lacks %q:\n%s", want, d)
		}
	}
}

// A backslash is a separator to the Python SDK: the path is accepted, with
// a warning naming the path it becomes.
func TestEntryPath_backslashWarnsWithRewrittenPath(t *testing.T) {
	resp := validateEntryPath(t, `notes\today.txt`)
	if resp.Diagnostics.HasError() {
		t.Fatalf("a backslash path is accepted by the Python SDK: %v", resp.Diagnostics)
	}
	if resp.Diagnostics.WarningsCount() != 1 {
		t.Fatalf("want one warning, got %v", resp.Diagnostics)
	}
	w := resp.Diagnostics.Warnings()[0]
	if !strings.Contains(w.Detail(), `is written as "notes/today.txt"`) {
		t.Errorf("warning does not name the rewritten path:\n%s", w.Detail())
	}
	if resp := validateEntryPath(t, "notes/today.txt"); len(resp.Diagnostics) != 0 {
		t.Errorf("a plain path draws %v", resp.Diagnostics)
	}
}
