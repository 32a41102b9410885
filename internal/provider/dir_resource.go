package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// NewDirResource returns the sandbox_dir resource: the Python SDK's Dir entry.
func NewDirResource() resource.Resource {
	return &entryResource[entryModel, *entryModel]{k: dirEntry{}}
}

// dirEntry is sandbox_dir: mkdir -p, then chgrp and chmod.
type dirEntry struct{}

func (dirEntry) typeName() string          { return "dir" }
func (dirEntry) makes() workspace.PathType { return workspace.PathDir }

func (dirEntry) schema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A directory in a workspace: the Python SDK's `Dir` entry (`mkdir -p`, then chgrp and chmod). " +
			"Destroy removes the directory when it is empty; one holding files written by others is left in place with a warning.",
		Attributes: dirAttributes(),
	}
}

func dirAttributes() map[string]schema.Attribute {
	attrs := entryAttributes("directory")
	attrs["manifest_entry"] = manifestEntryAttribute("`{\"type\": \"dir\", ..., \"children\": {}}`")
	return attrs
}

func (dirEntry) render(m, _ *entryModel) error { return m.setDirManifestEntry() }

// static: a directory's plan reads nothing outside its configuration.
func (dirEntry) static(context.Context, tfsdk.Plan) bool { return true }

func (dirEntry) plan(context.Context, *workspace.Engine, resource.ModifyPlanRequest, *resource.ModifyPlanResponse, *entryModel, *entryModel) {
}

func (dirEntry) apply(ctx context.Context, a entryApply[*entryModel], diags *diag.Diagnostics) {
	if err := a.ws.ApplyDir(ctx, a.rel, a.meta); err != nil {
		addEngineError(diags, "Applying directory "+a.rel+" failed", err)
	}
}

func (dirEntry) observe(ctx context.Context, ws *workspace.Workspace, _ *entryModel, rel string) (workspace.EntryState, error) {
	return ws.Stat(ctx, rel, false)
}

func (dirEntry) remove(ctx context.Context, ws *workspace.Workspace, _ *entryModel, rel string, _ privateGetter) (string, error) {
	return ws.RemoveDir(ctx, rel)
}
