package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// checkUserName fails the plan on attr when name (an entry's owner, a
// command's user) names no account of the existing workspace id, with the
// fix in the message; accounts that cannot be read without running
// something in the workspace give a warning instead. Nothing is checked
// while the workspace is new (its id unknown) or cannot be opened: the
// apply then says it.
func checkUserName(ctx context.Context, eng *workspace.Engine, id, name types.String, attr path.Path, diags *diag.Diagnostics) {
	if eng == nil || id.IsNull() || id.IsUnknown() || name.IsNull() || name.IsUnknown() || !workspace.ValidID(id.ValueString()) {
		return
	}
	ws, err := eng.Open(ctx, id.ValueString())
	if err != nil {
		return
	}
	err = ws.CheckUser(ctx, name.ValueString())
	switch {
	case err == nil:
	case errors.Is(err, workspace.ErrUnknownUser):
		fix := "Add it to the workspace's users, or use a numeric uid."
		if ws.Kind == "local" {
			fix = "Use a user of this machine, or a numeric uid."
		}
		diags.AddAttributeError(attr, "Unknown user "+name.ValueString(),
			"\""+name.ValueString()+"\" is neither one of the workspace's users, nor root, nor numeric, nor an account of "+
				"the workspace: "+err.Error()+". "+fix)
	default:
		diags.AddAttributeWarning(attr, "User "+name.ValueString()+" not checked",
			"Whether the workspace has an account \""+name.ValueString()+"\" cannot be known at plan time without running "+
				"something in it ("+err.Error()+"); the apply fails if it has none. To be sure, add it to the workspace's "+
				"users, or use a numeric uid.")
	}
}
