package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// upgradeFileV0 upgrades sandbox_file state of schema version 0, which
// published MD5, SHA-1 and SHA-512 always: `checksums` is null (nothing
// asked for) and those digests are null, as a plan of the same
// configuration makes them, so the upgraded plan is empty. SHA-256, size
// and everything else stay as they were.
func upgradeFileV0(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var st map[string]any
	if err := json.Unmarshal(req.RawState.JSON, &st); err != nil {
		resp.Diagnostics.AddError("Upgrading sandbox_file state failed", err.Error())
		return
	}
	st["checksums"] = nil
	for _, k := range []string{"content_md5", "content_sha1", "content_sha512", "content_base64sha512"} {
		st[k] = nil
	}
	data, err := json.Marshal(st)
	if err != nil {
		resp.Diagnostics.AddError("Upgrading sandbox_file state failed", err.Error())
		return
	}
	resp.DynamicValue = &tfprotov6.DynamicValue{JSON: data}
}
