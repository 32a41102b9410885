package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Attributes shared by the resources that take something out of a
// workspace (sandbox_snapshot, sandbox_export).

// sourceWorkspaceAttribute is the workspace_id of such a resource.
func sourceWorkspaceAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		Required: true, MarkdownDescription: "The `id` of the workspace to " + what + ".",
		PlanModifiers: []planmodifier.String{replaceWorkspaceID{}}, Validators: []validator.String{workspaceIDValidator{}},
	}
}

// retakeTriggersAttribute is the triggers map that takes it again.
func retakeTriggersAttribute(what string) schema.MapAttribute {
	return schema.MapAttribute{
		Optional: true, ElementType: types.StringType,
		MarkdownDescription: "Arbitrary values; changing any of them " + what + " again (as a replacement).",
		PlanModifiers:       []planmodifier.Map{mapplanmodifier.RequiresReplace()},
	}
}

// fileDigestsAttribute is the computed files map: path → sha256.
func fileDigestsAttribute(what string) schema.MapAttribute {
	return schema.MapAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "Workspace-relative path → SHA-256 (hex) of every file " + what + ".",
		PlanModifiers:       []planmodifier.Map{mapplanmodifier.UseStateForUnknown()},
	}
}

// digestMap turns path → sha256 into a files value.
func digestMap(files map[string]string) types.Map {
	vals := make(map[string]attr.Value, len(files))
	for p, sum := range files {
		vals[p] = types.StringValue(sum)
	}
	return types.MapValueMust(types.StringType, vals)
}
