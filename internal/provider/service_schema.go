package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// Defaults of sandbox_service.
const (
	defaultServiceLogMaxBytes = 10 << 20
	defaultStopTimeout        = "10s"
	defaultReadyInterval      = "1s"
	defaultReadyTimeout       = "60s"
)

var serviceNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// durationValidator wants a Go duration ("500ms", "10s", "2m") from min
// to max.
func durationValidator(minD, maxD time.Duration) stringRule {
	return stringRule{fmt.Sprintf("a duration such as \"10s\" from %s to %s", minD, maxD), "Invalid duration", func(s string) string {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Sprintf("%q is not a duration (write e.g. \"500ms\", \"10s\" or \"2m\"): %v", s, err)
		}
		if d < minD || d > maxD {
			return fmt.Sprintf("%q is out of range: want %s to %s", s, minD, maxD)
		}
		return ""
	}}
}

func portAttribute(desc string, required bool) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: !required, Required: required, MarkdownDescription: desc,
		Validators: []validator.Int64{int64validator.Between(1, 65535)}}
}

func serviceSchema() schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	envWO, envWOVersion := envWOAttributes("restart the service (as a replacement)", int64planmodifier.RequiresReplace())
	return schema.Schema{
		MarkdownDescription: "A long-running process in a workspace (a database, the web app under test, a language " +
			"server), started on create by a supervisor in its own session so that it outlives the provider, and " +
			"stopped on destroy: `SIGTERM` to every process of the service, then `SIGKILL` to those left after " +
			"`stop_timeout`. With `readiness`, create returns only once the service answers; a service that never " +
			"does fails the apply with the last lines of its log (and is stopped). Its standard output and error go " +
			"to `log_path` inside the workspace (readable with `data \"sandbox_file\"`). Refresh reads `running`: a " +
			"service that exited shows `running = false` and the next apply starts it again (as a replacement). " +
			"Every argument change restarts it the same way. Works on local, Docker and pod workspaces; the " +
			"workspace needs a POSIX `sh` (busybox is enough).",
		Blocks: map[string]schema.Block{
			"readiness": schema.SingleNestedBlock{
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
				MarkdownDescription: "How create knows the service is ready: exactly one of `exec`, `tcp_port` and " +
					"`http_get`, tried every `interval` until `timeout`. Without it, create returns once the process started.",
				Attributes: map[string]schema.Attribute{
					"exec": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Command vector run in the workspace (as `user`, in `working_dir`, with the " +
							"service's environment); exit 0 means ready.",
						Validators: []validator.List{listvalidator.SizeAtLeast(1), argvValidator{}}},
					"tcp_port": portAttribute("Port (1 to 65535) on 127.0.0.1 inside the workspace that must accept a connection.", false),
					"interval": schema.StringAttribute{Optional: true, Validators: []validator.String{durationValidator(100*time.Millisecond, time.Hour)},
						MarkdownDescription: "Time between probes (a duration, 100ms to 1h, default `" + defaultReadyInterval + "`)."},
					"timeout": schema.StringAttribute{Optional: true, Validators: []validator.String{durationValidator(time.Second, 24*time.Hour)},
						MarkdownDescription: "How long create waits for readiness (a duration, 1s to 24h, default `" + defaultReadyTimeout + "`)."},
				},
				Blocks: map[string]schema.Block{
					"http_get": schema.SingleNestedBlock{
						Validators:          []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("port"))},
						MarkdownDescription: "HTTP `GET` on 127.0.0.1 inside the workspace; a 2xx or 3xx answer means ready.",
						Attributes: map[string]schema.Attribute{
							"port": portAttribute("Port, 1 to 65535 (required).", false),
							"path": schema.StringAttribute{Optional: true, MarkdownDescription: "Path, starting with `/` (default `/`).",
								Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^/[^\s]*$`),
									"must start with / and contain no white space")}},
						}},
				},
			},
		},
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Random id of this start of the service.",
				PlanModifiers: keep},
			"workspace_id": schema.StringAttribute{
				Required: true, MarkdownDescription: "`id` of the `sandbox_workspace` to run in.",
				PlanModifiers: []planmodifier.String{replaceWorkspaceID{}}, Validators: []validator.String{workspaceIDValidator{}},
			},
			"name": schema.StringAttribute{
				Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the service in its workspace (1 to 64 of `A-Z a-z 0-9 _ . -`, not starting " +
					"with `.` or `-`); its log is `.services/<name>.log`. Two services of one workspace need distinct names.",
				Validators: []validator.String{stringvalidator.RegexMatches(serviceNameRE,
					"must be 1 to 64 characters of A-Z a-z 0-9 _ . - not starting with . or -")},
			},
			"command": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Command vector, run without a shell. Exactly one of `command` and `shell` is required.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), argvValidator{}},
				PlanModifiers:       []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"shell": schema.StringAttribute{Optional: true, PlanModifiers: replace, Validators: []validator.String{scriptValidator},
				MarkdownDescription: "Shell script, run as `sh -lc <script>` as the Python SDK's `exec(..., shell=True)` does."},
			"user": schema.StringAttribute{Optional: true, PlanModifiers: replace, MarkdownDescription: commandDocs["user"]},
			"working_dir": schema.StringAttribute{Optional: true, PlanModifiers: replace, MarkdownDescription: commandDocs["working_dir"],
				Validators: []validator.String{workingDirValidator{}}},
			"environment": schema.MapAttribute{
				Optional: true, ElementType: types.StringType, Validators: []validator.Map{envMapValidator{}},
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
				MarkdownDescription: "Variables added to the service's environment, over the workspace's `environment`. In " +
					"state in clear text: give secrets with `environment_wo`.",
			},
			"environment_wo":         envWO,
			"environment_wo_version": envWOVersion,
			"restart": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString("no"), PlanModifiers: replace,
				Validators: []validator.String{stringvalidator.OneOf("no", "on-failure")},
				MarkdownDescription: "`\"no\"` (default): a service that exits stays stopped until the next apply starts it. " +
					"`\"on-failure\"`: the supervisor inside the workspace starts it again one second after a non-zero " +
					"exit (or a kill), without Terraform; a clean exit (code 0) ends it. Restarts are noted in the log.",
			},
			"stop_timeout": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(defaultStopTimeout),
				Validators: []validator.String{durationValidator(0, time.Hour)},
				MarkdownDescription: "How long destroy waits after `SIGTERM` before it sends `SIGKILL` to what is left " +
					"(a duration, 0 to 1h, default `" + defaultStopTimeout + "`).",
			},
			"log_max_bytes": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(defaultServiceLogMaxBytes),
				Validators:    []validator.Int64{int64validator.Between(4096, 1<<30)},
				PlanModifiers: []planmodifier.Int64{int64planmodifier.RequiresReplace()},
				MarkdownDescription: "Size cap of the log in bytes (4096 to 1 GiB, default 10 MiB): checked every two " +
					"seconds; past it, the newer half of the log moves to `<log_path>.1` and the log starts over.",
			},
			"pid": schema.Int64Attribute{Computed: true, PlanModifiers: []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
				MarkdownDescription: "Process id, inside the workspace, of the service's supervisor (the leader of its session)."},
			"started_at": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "When the service was started (RFC 3339, UTC)."},
			"running": schema.BoolAttribute{Computed: true, PlanModifiers: []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "Whether the service's supervisor is alive, as of the last refresh. `false` plans a restart."},
			"log_path": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "Workspace-relative path of the service's log (`.services/<name>.log`)."},
		},
	}
}

// serviceLogPath is log_path for a name.
func serviceLogPath(name string) string { return workspace.ServiceLogPath(strings.TrimSpace(name)) }

// readinessValidator wants exactly one probe in a readiness block that is
// there.
type readinessValidator struct{}

func (readinessValidator) Description(context.Context) string {
	return "readiness needs exactly one of exec, tcp_port and http_get"
}

func (v readinessValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (readinessValidator) ValidateResource(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var r types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("readiness"), &r)...)
	if resp.Diagnostics.HasError() || r.IsNull() || r.IsUnknown() {
		return
	}
	var set []string
	for _, name := range []string{"exec", "tcp_port", "http_get"} {
		if v, ok := r.Attributes()[name]; !ok || !v.IsNull() {
			set = append(set, name)
		}
	}
	if len(set) != 1 {
		resp.Diagnostics.AddAttributeError(path.Root("readiness"), "Invalid readiness",
			fmt.Sprintf("readiness needs exactly one of exec, tcp_port and http_get; it has %d (%s).", len(set), strings.Join(set, ", ")))
	}
}
