package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestManifestJSONValidator(t *testing.T) {
	for _, tt := range []struct {
		in, wantErr, wantWarn string
	}{
		// Parts that belong to the workspace fail the plan, each on its own,
		// naming the sandbox_workspace attribute that takes it; empty ones
		// are accepted.
		{`{"entries": {"a": {"type": "file", "content": "x"}}}`, "", ""},
		{`not json`, "not valid JSON", ""},
		{`{"entries": {"a": {"type": "file"}}}`, "entries.content: Field required", ""},
		{`{"entries": {"a": {"type": "dir", "children": {"../b": {"type": "dir"}}}}}`, "manifest path must not escape root: a/../b", ""},
		{`{"root": "/w", "entries": {"a": {"type": "file", "content": "x"}}}`, "",
			`the manifest's root "/w" is not applied: entries land under the workspace's own root (set the root with sandbox_workspace.root)`},
		{`{"environment": {"value": {"A": "1", "B": "2"}}}`, "set it with sandbox_workspace.environment", ""},
		{`{"users": [{"name": "u"}]}`, "sets users (1), which belong to the workspace: declare them with sandbox_workspace.users", ""},
		{`{"groups": [{"name": "g", "users": []}]}`, "declare them with sandbox_workspace.groups", ""},
		{`{"extra_path_grants": [{"path": "/data"}]}`, "grant the paths with sandbox_workspace.extra_path_grants", ""},
		{`{"environment": {"value": {}}, "users": [], "groups": [], "extra_path_grants": []}`, "", ""},
	} {
		resp := &validator.StringResponse{}
		manifestJSONValidator{}.ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("manifest_json"), ConfigValue: types.StringValue(tt.in),
		}, resp)
		var errs, warns []string
		for _, d := range resp.Diagnostics {
			if d.Severity().String() == "Error" {
				errs = append(errs, d.Detail())
			} else {
				warns = append(warns, d.Detail())
			}
		}
		if (tt.wantErr == "") != (len(errs) == 0) || (tt.wantErr != "" && !strings.Contains(strings.Join(errs, "\n"), tt.wantErr)) {
			t.Errorf("%s: errors %q, want %q", tt.in, errs, tt.wantErr)
		}
		if (tt.wantWarn == "") != (len(warns) == 0) || (tt.wantWarn != "" && !strings.Contains(strings.Join(warns, "\n"), tt.wantWarn)) {
			t.Errorf("%s: warnings %q, want %q", tt.in, warns, tt.wantWarn)
		}
	}
}
