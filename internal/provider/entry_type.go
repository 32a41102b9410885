package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// entryModelPtr is a pointer to an entry resource's model, which embeds
// entryModel (the attributes every entry has).
type entryModelPtr[M any] interface {
	*M
	common() *entryModel
}

// entryType is what one entry resource (sandbox_dir, sandbox_file,
// sandbox_local_dir, sandbox_git_repo) adds to entryResource, which
// implements Read, Delete, Import, Configure and the frame of plan and
// apply once for all of them.
type entryType[P any] interface {
	// typeName is the resource type name without the provider's prefix.
	typeName() string
	// schema is the resource's schema (entryAttributes plus its own).
	schema() schema.Schema
	// makes is what the entry puts at its path, a file or a directory.
	makes() workspace.PathType
	// render sets manifest_entry from m; cfg is the configuration, nil
	// when m comes from state.
	render(m, cfg P) error
	// plan sets the kind's computed attributes of the planned m, after the
	// path checks and render have run.
	plan(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m, cfg P)
	// apply materialises m in the workspace and sets its computed
	// attributes; it reports its own diagnostics.
	apply(ctx context.Context, a entryApply[P], diags *diag.Diagnostics)
	// observe reads the entry at rel into m (drift shows as a difference
	// from state) and returns what stands at rel.
	observe(ctx context.Context, ws *workspace.Workspace, m P, rel string) (workspace.EntryState, error)
	// remove deletes what the entry wrote and returns a warning naming what
	// was left in place.
	remove(ctx context.Context, ws *workspace.Workspace, m P, rel string, private privateGetter) (warning string, err error)
}

// entryApply is what an apply step gets: the planned model (to update),
// the configuration (write-only values live only there), the prior state
// (nil on create), the workspace, the normalised path and the metadata.
type entryApply[P any] struct {
	m, cfg, prior P
	eng           *workspace.Engine
	ws            *workspace.Workspace
	rel           string
	meta          workspace.Meta
	private       privateState
}

// Optional parts of an entry type.
type (
	entryConfigValidators interface {
		configValidators() []resource.ConfigValidator
	}
	entryValidator[P any] interface {
		validate(cfg P, diags *diag.Diagnostics)
	}
	// entryRawValidator validates the raw configuration, reading only
	// the attributes it needs (preferred to entryValidator).
	entryRawValidator interface {
		validateRaw(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics)
	}
	entryUpgrader interface {
		upgraders() map[int64]resource.StateUpgrader
	}
	// entryStatic is a kind whose plan of an unchanged entry reads nothing
	// outside its configuration and state (no host source to hash, no ref
	// to resolve), so a plan equal to the prior state is left as it is.
	entryStatic interface {
		static(ctx context.Context, plan tfsdk.Plan) bool
	}
)

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

type privateState interface {
	privateSetter
	privateGetter
}
