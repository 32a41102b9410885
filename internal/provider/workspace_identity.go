package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// A workspace's private state records the identity of the daemon or
// cluster it was created on, under a key per kind. A workspace that the
// configured backend does not have is then re-created only when it was
// created there; on another backend (the provider pointed elsewhere),
// re-creating it would orphan the real one.
type privateIdentity struct {
	ID string `json:"id"`
}

// rememberIdentity records id under key; an empty id (the backend did not
// say) records nothing, and the check it serves is skipped.
func rememberIdentity(ctx context.Context, p privateSetter, key, id string, diags *diag.Diagnostics) {
	if id == "" {
		return
	}
	data, _ := json.Marshal(privateIdentity{ID: id})
	diags.Append(p.SetKey(ctx, key, data)...)
}

// recordedIdentity is the identity under key, or "".
func recordedIdentity(ctx context.Context, p privateGetter, key string) string {
	data, d := p.GetKey(ctx, key)
	if d.HasError() || len(data) == 0 {
		return ""
	}
	var want privateIdentity
	if json.Unmarshal(data, &want) != nil {
		return ""
	}
	return want.ID
}
