package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// upgradeTree is the state upgrader of a copied-tree resource from an
// earlier schema version: a digest named old (sandbox_local_dir's
// `source_sha256`, "" for none) moves to `tree_sha256`; a missing
// total_bytes stays null until the next read; `files` and
// `file_permissions`, recorded in state before record_files existed, are
// dropped (record_files null, the default), so the upgraded plan is empty
// and the next refresh keeps the per-file digests in private state.
func upgradeTree(typ, old string) resource.StateUpgrader {
	return resource.StateUpgrader{StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		var st map[string]any
		if err := json.Unmarshal(req.RawState.JSON, &st); err != nil {
			resp.Diagnostics.AddError("Upgrading "+typ+" state failed", err.Error())
			return
		}
		if v, ok := st[old]; ok && old != "" {
			st["tree_sha256"] = v
			delete(st, old)
		}
		if _, ok := st["total_bytes"]; !ok {
			st["total_bytes"] = nil
		}
		st["record_files"], st["files"], st["file_permissions"], st["changes"] = nil, nil, nil, nil
		data, err := json.Marshal(st)
		if err != nil {
			resp.Diagnostics.AddError("Upgrading "+typ+" state failed", err.Error())
			return
		}
		resp.DynamicValue = &tfprotov6.DynamicValue{JSON: data}
	}}
}
