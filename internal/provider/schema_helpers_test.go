package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Unit tests of the provider's schema helpers, without Terraform: the custom
// permissions type, the validators and plan modifiers, import-ID parsing.

func TestPermissionsValue_semanticEquality(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"0755", "-rwxr-xr-x", true},
		{"0755", "drwxr-xr-x", true},
		{"0750", "drwxr-x---", true},
		{"750", "0750", true},
		{"0644", "-rw-r--r--", true},
		{"0755", "rwxr-xr-x", false}, // not a valid ls -l string: no type character
		{"0755", "0750", false},
		{"0600", "rw-r--r--", false},
		{"0755", "not-a-mode", false},
	} {
		got, diags := NewPermissionsValue(c.a).StringSemanticEquals(context.Background(), NewPermissionsValue(c.b))
		if diags.HasError() || got != c.want {
			t.Errorf("%q ~ %q = %v (%v), want %v", c.a, c.b, got, diags, c.want)
		}
	}
	// A plain string is never semantically equal: only values of the type compare.
	if got, _ := NewPermissionsValue("0755").StringSemanticEquals(context.Background(), basetypes.NewStringValue("0755")); got {
		t.Error("a PermissionsValue equals a plain string")
	}
}

func TestStringValidators(t *testing.T) {
	for _, c := range []struct {
		name    string
		v       validator.String
		value   string
		problem string // "" for accepted; else a part of the error detail
	}{
		{"entry path", entryPathValidator{}, "notes/a.txt", ""},
		{"entry path dot", entryPathValidator{}, "./a.txt", ""},
		{"entry path absolute", entryPathValidator{}, "/etc/passwd", "absolute"},
		{"entry path windows", entryPathValidator{}, `C:\x`, "absolute"},
		{"entry path escape", entryPathValidator{}, "a/../../b", "escape_root"},
		{"entry path root", entryPathValidator{}, ".", "workspace root itself"},
		{"entry path NUL", entryPathValidator{}, "a\x00b", "NUL"},
		{"entry path long name", entryPathValidator{}, strings.Repeat("n", 256), "255 bytes"},
		{"file path", filePathValidator, "a/b.txt", ""},
		{"file path as dir", filePathValidator, "a/b/", "ends with a separator"},
		{"file path backslash", filePathValidator, `a\`, "ends with a separator"},
		{"workspace id docker", workspaceIDValidator{}, "docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11", ""},
		{"workspace id local", workspaceIDValidator{}, "local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:/srv/a", ""},
		{"workspace id typo", workspaceIDValidator{}, "dokcer:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11", "unknown kind"},
		{"workspace id empty", workspaceIDValidator{}, "", "not a workspace id"},
		{"user name", accountNameValidator("user"), "agent", ""},
		{"user root", accountNameValidator("user"), "root", "root"},
		{"user dash", accountNameValidator("user"), "-x", "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := validator.StringRequest{Path: path.Root("x"), ConfigValue: types.StringValue(c.value)}
			var resp validator.StringResponse
			c.v.ValidateString(context.Background(), req, &resp)
			if c.problem == "" {
				if resp.Diagnostics.HasError() {
					t.Fatalf("%q refused: %v", c.value, resp.Diagnostics)
				}
				return
			}
			if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics[0].Detail(), c.problem) {
				t.Fatalf("%q: diagnostics %v, want an error saying %q", c.value, resp.Diagnostics, c.problem)
			}
			if d, ok := resp.Diagnostics[0].(diag.DiagnosticWithPath); !ok || !d.Path().Equal(path.Root("x")) {
				t.Errorf("error %v is not on the attribute", resp.Diagnostics[0])
			}
		})
	}
	// Unknown and null values are left to the plan.
	for _, v := range []types.String{types.StringUnknown(), types.StringNull()} {
		var resp validator.StringResponse
		entryPathValidator{}.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("x"), ConfigValue: v}, &resp)
		if resp.Diagnostics.HasError() {
			t.Errorf("%v refused: %v", v, resp.Diagnostics)
		}
	}
}

func TestParseEntryImportID(t *testing.T) {
	const u = "0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11"
	for _, c := range []struct {
		in, ws, rel, problem string
	}{
		{in: "docker:" + u + "/config/app.toml", ws: "docker:" + u, rel: "config/app.toml"},
		{in: "docker:" + u + "/./a//b", ws: "docker:" + u, rel: "a/b"},
		// A local id's root may hold slashes: it is split at the directory
		// carrying the workspace marker, which the acceptance tests create.
		{in: "local:" + u + ":/srv/w/notes.txt", problem: "carries the marker"},
		{in: u + "/a.txt", problem: "bare UUID"},
		{in: "docker:" + u, problem: "<workspace_id>/<path>"},
		{in: "nonsense/a", problem: "<workspace_id>/<path>"},
		{in: "docker:" + u + "/../a", problem: "must not escape root"},
	} {
		ws, rel, err := parseEntryImportID(c.in)
		switch {
		case c.problem != "" && (err == nil || !strings.Contains(err.Error(), c.problem)):
			t.Errorf("%q: err %v, want one saying %q", c.in, err, c.problem)
		case c.problem == "" && (err != nil || ws != c.ws || rel != c.rel):
			t.Errorf("%q = %q, %q, %v; want %q, %q", c.in, ws, rel, err, c.ws, c.rel)
		}
	}
}

func TestURLProblem(t *testing.T) {
	for u, want := range map[string]string{
		"https://example.com/o/r.git":       "",
		"git://127.0.0.1:9418/r.git":        "",
		"git@github.com:o/r.git":            "",
		"file:///srv/git/r.git":             "",
		"https://user:secret@example.com/r": "must not carry a password",
		"ftp://example.com/r":               "must start with",
		"example.com/r":                     "must start with",
	} {
		if got := urlProblem(u); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("urlProblem(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestPlanModifiers(t *testing.T) {
	ctx := context.Background()
	const u = "0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11"
	replaces := func(m planmodifier.String, state, plan types.String) bool {
		t.Helper()
		req := planmodifier.StringRequest{StateValue: state, PlanValue: plan, ConfigValue: plan}
		// The modifiers only look at whether state and plan exist.
		req.State.Raw, req.Plan.Raw = nonNullRaw(), nonNullRaw()
		resp := planmodifier.StringResponse{PlanValue: plan}
		m.PlanModifyString(ctx, req, &resp)
		return resp.RequiresReplace
	}
	s := types.StringValue
	for _, c := range []struct {
		name        string
		m           planmodifier.String
		state, plan types.String
		want        bool
	}{
		{"same workspace", replaceWorkspaceID{}, s("docker:" + u), s("docker:" + u), false},
		{"bare UUID to its id", replaceWorkspaceID{}, s(u), s("docker:" + u), false},
		{"another workspace", replaceWorkspaceID{}, s("docker:" + u), s("docker:1b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11"), true},
		{"unknown workspace", replaceWorkspaceID{}, s("docker:" + u), types.StringUnknown(), true},
		{"path spelling", replaceIfPathMoves(), s("a.txt"), s("./a.txt"), false},
		{"path moved", replaceIfPathMoves(), s("a.txt"), s("b.txt"), true},
		{"path backslash", replaceIfPathMoves(), s("a/b"), s(`a\b`), false},
	} {
		if got := replaces(c.m, c.state, c.plan); got != c.want {
			t.Errorf("%s: replace = %v, want %v", c.name, got, c.want)
		}
	}
}

// nonNullRaw is a state or plan that exists.
func nonNullRaw() tftypes.Value {
	return tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}, map[string]tftypes.Value{})
}

func TestKindBlockNames(t *testing.T) {
	if got := kindBlockNames(); got != "`local { ... }`, `docker { ... }`, `kubernetes { ... }` or `agent_sandbox { ... }`" {
		t.Errorf("kindBlockNames() = %q", got)
	}
	for _, k := range workspaceKinds {
		if kindNamed(k.name()) != k {
			t.Errorf("kindNamed(%q) does not find its kind", k.name())
		}
		if _, ok := kindBlocks()[k.name()]; !ok {
			t.Errorf("no schema block for kind %q", k.name())
		}
	}
}
