package provider

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/attr"

	"fmt"

	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// dockerAttrTypes are the docker block's attribute types, read from its
// schema so that each attribute is declared once.
var dockerAttrTypes = blockAttrTypes(dockerBlockSchema())

// hostnamePattern is a host name: RFC 1123 labels separated by dots.
var hostnamePattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)

// dockerBlockSchema is the docker block of sandbox_workspace: the
// container's own options here, its limits and hardening
// (workspace_docker_isolation_schema.go), networks
// (workspace_docker_networks.go), volumes and health check.
func dockerBlockSchema() schema.SingleNestedBlock {
	b := schema.SingleNestedBlock{
		MarkdownDescription: "Selects the docker backend: the workspace is a directory inside a container kept running by " +
			"`tail -f /dev/null` (with a `lifetime`, by the file helper until `expires_at`), on the daemon of the provider's " +
			"`docker_host` settings. Conflicts with the other backend blocks. " +
			"[Details](#docker-backend).",
		PlanModifiers: []planmodifier.Object{replaceWhenAddedOrRemoved{}, replaceIfIsolationChanges{}},
		Attributes: map[string]schema.Attribute{
			"image": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Image reference, e.g. `python:3.12-slim` or `registry.example:5000/team/agent:1.4`. " +
					"Required in a `docker` block. Any image with `tail` and `sh` works. Changing it replaces the workspace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"pull_policy": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "When to pull the image: `\"missing\"` (default; only when the daemon lacks it; the plan warns), " +
					"`\"always\"` (before every creation) or `\"never\"` (a missing image fails the plan on `image`). Plans only " +
					"inspect. Pull errors (unknown tag, denied access) fail the apply with the daemon's message. Used at creation only.",
				Validators: []validator.String{stringvalidator.OneOf("missing", "always", "never")},
			},
			"network_mode": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Network of the container: unset for the daemon's default, `\"none\"` for no network " +
					"(then `exposed_ports` must be empty, as the Python SDK requires), or the name of a Docker network. Changing " +
					"it replaces the workspace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"labels": schema.MapAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Labels of the container (the Python SDK's `labels`). `sandbox.workspace_id` and " +
					"`sandbox.root` are set by the provider and cannot be given. Changing them replaces the workspace.",
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(replaceMapIfChanged,
					"Changing it replaces the workspace.", "Changing it replaces the workspace.")},
			},
			"fuse": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Grant FUSE to the container for in-container mounts, as the Python SDK does: device " +
					"`/dev/fuse`, capability `SYS_ADMIN` and `apparmor:unconfined`. Default `false`. Changing it replaces " +
					"the workspace.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplaceIf(replaceBoolIfChanged,
					"Changing it replaces the workspace.", "Changing it replaces the workspace.")},
			},
			"hostname": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Host name of the container (`docker run --hostname`), such as `\"grader-01\"`: letters, digits " +
					"and hyphens in dot-separated labels, at most 63 characters. Default Docker's, the start of the container id. " +
					"Changing it replaces the workspace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{stringvalidator.LengthBetween(1, 63), stringvalidator.RegexMatches(hostnamePattern,
					"must be a host name: letters, digits and hyphens in dot-separated labels, no label starting or ending with a hyphen")},
			},
			"volumes": volumesSchema(),
			"restart_policy": schema.StringAttribute{
				Optional: true,
				Computed: true,
				Default:  stringdefault.StaticString("no"),
				MarkdownDescription: "Docker restart policy of the container: `\"no\"` (default), `\"on-failure\"`, " +
					"`\"unless-stopped\"` or `\"always\"`. With `always` and `unless-stopped` the daemon starts the container " +
					"again after a daemon restart; `started_at` then changes. Changing it replaces the workspace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{stringvalidator.OneOf("no", "on-failure", "unless-stopped", "always")},
			},
		},
	}
	b.Blocks = map[string]schema.Block{"healthcheck": healthcheckBlock()}
	maps.Copy(b.Attributes, isolationAttributes())
	maps.Copy(b.Attributes, networkingAttributes())
	return b
}

// blockAttrTypes are the attribute types of a nested block's object.
func blockAttrTypes(b schema.SingleNestedBlock) map[string]attr.Type {
	t, ok := b.Type().(types.ObjectType)
	if !ok {
		panic(fmt.Sprintf("a nested block without a custom type is an object, not %T", b.Type()))
	}
	return t.AttrTypes
}
