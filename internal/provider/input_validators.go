package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Plan-time checks of values that would otherwise fail only at apply, or
// not at all: each names the value and the rule it breaks.

// stringRule is a string validator from a check that returns the problem
// with a known value ("" when there is none), reported under summary.
type stringRule struct {
	desc, summary string
	check         func(string) string
}

func (r stringRule) Description(context.Context) string { return r.desc }

func (r stringRule) MarkdownDescription(ctx context.Context) string { return r.Description(ctx) }

func (r stringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := r.check(req.ConfigValue.ValueString()); problem != "" {
		resp.Diagnostics.AddAttributeError(req.Path, r.summary, problem)
	}
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// localBaseDirValidator refuses a local_base_dir that is empty or the file
// system root (workspaces and the registry would be written into /).
var localBaseDirValidator = stringRule{"must be a directory other than the file system root", "Invalid local_base_dir", func(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "local_base_dir must not be empty: omit it for the default \"" + DefaultLocalBaseDir + "\"."
	}
	abs := raw
	if !filepath.IsAbs(abs) {
		if wd, err := os.Getwd(); err == nil {
			abs = filepath.Join(wd, abs)
		}
	}
	if filepath.Clean(abs) != "/" {
		return ""
	}
	return fmt.Sprintf("local_base_dir %s is the file system root: workspaces and the registry (.workspaces) would be "+
		"created directly in /. Choose a directory of its own, such as \".sandbox\".", sandbox.QuoteText(raw))
}}

// accountNameValidator checks a user or group name (kind "user" or
// "group") with sandbox.ValidateAccountName.
func accountNameValidator(kind string) stringRule {
	return stringRule{"must be a POSIX portable " + kind + " name", "Invalid " + kind + " name", func(v string) string {
		if kind == "group" && v == "root" {
			return "group name \"root\" names the superuser's group, which every image has, so groupadd would fail; choose another name."
		}
		return errText(sandbox.ValidateAccountName(kind, v))
	}}
}

// groupRefValidator checks an entry's group: a group name or a numeric gid.
var groupRefValidator = stringRule{"must be a POSIX portable group name or a numeric gid", "Invalid group", func(v string) string {
	if err := sandbox.ValidateGroupRef(v); err != nil {
		return err.Error() + "; omit group to leave the group alone."
	}
	return ""
}}

// ownerRefValidator checks an owner: a user name or a numeric uid.
var ownerRefValidator = stringRule{"must be a POSIX portable user name, `root` or a numeric uid", "Invalid owner", func(v string) string {
	if err := sandbox.ValidateOwnerRef(v); err != nil {
		return err.Error() + "; omit it to leave the owner alone."
	}
	return ""
}}

// scriptValidator refuses an empty or blank shell script and NUL bytes.
var scriptValidator = stringRule{"must be a non-blank script without NUL bytes", "Invalid shell script", func(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Sprintf("shell %s is blank: `sh -lc` would run nothing; give a script or use command.", sandbox.QuoteText(s))
	case strings.ContainsRune(s, 0):
		return "shell contains a NUL byte, which no argument can hold."
	}
	return ""
}}

// envMapValidator checks the names and values of an environment map.
type envMapValidator struct{}

func (envMapValidator) Description(context.Context) string {
	return "names must be non-empty and contain no \"=\" or NUL byte; values contain no NUL byte"
}

func (v envMapValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (envMapValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for k, v := range req.ConfigValue.Elements() {
		if err := sandbox.ValidateEnvName(k); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid environment variable name", err.Error())
			continue
		}
		if s, ok := v.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			if err := sandbox.ValidateEnvValue(k, s.ValueString()); err != nil {
				resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid environment variable value", err.Error())
			}
		}
	}
}

// argvValidator refuses an empty program name (command[0]) and NUL bytes
// in any argument.
type argvValidator struct{}

func (argvValidator) Description(context.Context) string {
	return "command[0] must be a non-empty program; no argument may contain a NUL byte"
}

func (v argvValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (argvValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for i, e := range req.ConfigValue.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		switch {
		case i == 0 && strings.TrimSpace(s.ValueString()) == "":
			resp.Diagnostics.AddAttributeError(req.Path.AtListIndex(0), "Invalid command",
				fmt.Sprintf("command[0] is %s: the first element names the program to run and must not be empty.", sandbox.QuoteText(s.ValueString())))
		case strings.ContainsRune(s.ValueString(), 0):
			resp.Diagnostics.AddAttributeError(req.Path.AtListIndex(i), "Invalid command",
				fmt.Sprintf("command[%d] contains a NUL byte, which no argument can hold.", i))
		}
	}
}

// uniqueNamesValidator refuses a list of accounts (objects with a `name`)
// that names one twice: the Python SDK runs `groupadd` once per listed
// group, so a repeated group fails its apply, and a repeated user or member
// is a mistake that would otherwise pass silently.
type uniqueNamesValidator string

func (v uniqueNamesValidator) Description(context.Context) string {
	return "each " + string(v) + " is listed once"
}

func (v uniqueNamesValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v uniqueNamesValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	first := map[string]int{}
	for i, e := range req.ConfigValue.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		name, ok := o.Attributes()["name"].(types.String)
		if !ok || name.IsNull() || name.IsUnknown() {
			continue
		}
		if j, seen := first[name.ValueString()]; seen {
			at := req.Path.AtListIndex(i)
			if v == "member" {
				// Terraform places a diagnostic on groups[0].users[1] at the
				// line of the top-level `users`; groups[0] is placed right.
				at = req.Path.ParentPath()
			}
			resp.Diagnostics.AddAttributeError(at, "Duplicate "+string(v),
				fmt.Sprintf("%s lists %s %s twice (index %d and %d): list each %s once.",
					req.Path, string(v), sandbox.QuoteText(name.ValueString()), j, i, string(v)))
			continue
		}
		first[name.ValueString()] = i
	}
}

// checkGroupsNotUsers refuses a group named like a user: each user is
// created with a group of its own name (useradd -U, as in the Python SDK),
// which the listed group would already hold.
func checkGroupsNotUsers(m workspaceModel, diags *diag.Diagnostics) {
	names := func(l types.List) []types.String {
		var out []types.String
		for _, e := range l.Elements() {
			if o, ok := e.(types.Object); ok && !o.IsNull() && !o.IsUnknown() {
				if n, ok := o.Attributes()["name"].(types.String); ok && !n.IsNull() && !n.IsUnknown() {
					out = append(out, n)
				}
			}
		}
		return out
	}
	users := map[string]bool{}
	for _, n := range names(m.Users) {
		users[n.ValueString()] = true
	}
	for _, e := range m.Groups.Elements() {
		if o, ok := e.(types.Object); ok && !o.IsNull() && !o.IsUnknown() {
			if members, ok := o.Attributes()["users"].(types.List); ok {
				for _, n := range names(members) {
					users[n.ValueString()] = true
				}
			}
		}
	}
	for i, e := range m.Groups.Elements() {
		o, ok := e.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		g, ok := o.Attributes()["name"].(types.String)
		if ok && !g.IsNull() && !g.IsUnknown() && users[g.ValueString()] {
			diags.AddAttributeError(path.Root("groups").AtListIndex(i), "Group named like a user",
				fmt.Sprintf("group %s has the name of a user; each user gets a group of its own name when it is created "+
					"(useradd -U), so this group would already exist: choose another name.", sandbox.QuoteText(g.ValueString())))
		}
	}
}
