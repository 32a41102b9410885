package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// allowSecretsAttribute is the opt-out of the secret gate of a snapshot
// or an export.
func allowSecretsAttribute(what string) schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, MarkdownDescription: "By default a file holding the value of a " +
		"write-only attribute this provider was given in the same run (such as a `sandbox_file`'s `content_wo` or an " +
		"`environment_wo` value, at least 8 bytes) fails the " + what + " with an error naming the path and the " +
		"attribute, never the value. `true` lets such files in. Default `false`. Limits: see the `sandbox_snapshot` page.",
		PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()}}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
