package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

var (
	_ resource.ResourceWithConfigure        = (*serviceResource)(nil)
	_ resource.ResourceWithConfigValidators = (*serviceResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*serviceResource)(nil)
)

// NewServiceResource returns the sandbox_service resource: a supervised
// long-running process in a workspace.
func NewServiceResource() resource.Resource { return &serviceResource{} }

type serviceResource struct {
	eng *workspace.Engine
}

type serviceModel struct {
	ID                   types.String    `tfsdk:"id"`
	WorkspaceID          types.String    `tfsdk:"workspace_id"`
	Name                 types.String    `tfsdk:"name"`
	Command              types.List      `tfsdk:"command"`
	Shell                types.String    `tfsdk:"shell"`
	User                 types.String    `tfsdk:"user"`
	WorkingDir           types.String    `tfsdk:"working_dir"`
	Environment          types.Map       `tfsdk:"environment"`
	EnvironmentWO        types.Map       `tfsdk:"environment_wo"`
	EnvironmentWOVersion types.Int64     `tfsdk:"environment_wo_version"`
	Restart              types.String    `tfsdk:"restart"`
	StopTimeout          types.String    `tfsdk:"stop_timeout"`
	LogMaxBytes          types.Int64     `tfsdk:"log_max_bytes"`
	Readiness            *readinessModel `tfsdk:"readiness"`
	PID                  types.Int64     `tfsdk:"pid"`
	StartedAt            types.String    `tfsdk:"started_at"`
	Running              types.Bool      `tfsdk:"running"`
	LogPath              types.String    `tfsdk:"log_path"`
}

type readinessModel struct {
	Exec     types.List    `tfsdk:"exec"`
	TCPPort  types.Int64   `tfsdk:"tcp_port"`
	HTTPGet  *httpGetModel `tfsdk:"http_get"`
	Interval types.String  `tfsdk:"interval"`
	Timeout  types.String  `tfsdk:"timeout"`
}

type httpGetModel struct {
	Port types.Int64  `tfsdk:"port"`
	Path types.String `tfsdk:"path"`
}

// serviceProcessKey is the private state key holding the process identity.
const serviceProcessKey = "process"

// serviceLogLines is how many log lines a readiness failure shows.
const serviceLogLines = 20

func (r *serviceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_service"
}

func (r *serviceResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = serviceSchema()
}

func (r *serviceResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("command"), path.MatchRoot("shell")),
		readinessValidator{}, envWOValidator{}, localUserValidator{},
	}
}

func (r *serviceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.eng = engineFrom(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan plans a restart (a replacement) of a service that the last
// refresh found not running, and checks a new `user` against the workspace.
func (r *serviceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var id, user types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("workspace_id"), &id)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("user"), &user)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		checkUserName(ctx, r.eng, id, user, path.Root("user"), &resp.Diagnostics)
		var name types.String
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
		if !name.IsUnknown() && !name.IsNull() {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("log_path"), serviceLogPath(name.ValueString()))...)
		}
		return
	}
	var running types.Bool
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("running"), &running)...)
	if running.IsNull() || running.ValueBool() {
		return
	}
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("running"))
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("running"), true)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("started_at"), types.StringUnknown())...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("pid"), types.Int64Unknown())...)
}

func (m *serviceModel) spec(ctx context.Context, secretEnv map[string]string, diags *diag.Diagnostics) workspace.ServiceSpec {
	spec := workspace.ServiceSpec{Name: m.Name.ValueString(), User: m.User.ValueString(), WorkDir: m.WorkingDir.ValueString(),
		Env: map[string]string{}, SecretEnv: secretEnv, RestartOnFailure: m.Restart.ValueString() == "on-failure",
		LogMaxBytes: m.LogMaxBytes.ValueInt64()}
	if !m.Shell.IsNull() {
		spec.Argv = workspace.ShellArgv(m.Shell.ValueString())
	} else {
		diags.Append(m.Command.ElementsAs(ctx, &spec.Argv, false)...)
	}
	diags.Append(m.Environment.ElementsAs(ctx, &spec.Env, false)...)
	return spec
}

func (m *serviceModel) readiness(ctx context.Context, diags *diag.Diagnostics) *workspace.Readiness {
	if m.Readiness == nil {
		return nil
	}
	rm := m.Readiness
	r := &workspace.Readiness{TCPPort: int(rm.TCPPort.ValueInt64())}
	r.Interval, _ = time.ParseDuration(defaultReadyInterval)
	r.Timeout, _ = time.ParseDuration(defaultReadyTimeout)
	if !rm.Interval.IsNull() {
		r.Interval, _ = time.ParseDuration(rm.Interval.ValueString())
	}
	if !rm.Timeout.IsNull() {
		r.Timeout, _ = time.ParseDuration(rm.Timeout.ValueString())
	}
	if !rm.Exec.IsNull() {
		diags.Append(rm.Exec.ElementsAs(ctx, &r.Exec, false)...)
	}
	if rm.HTTPGet != nil {
		r.HTTPPort, r.HTTPPath = int(rm.HTTPGet.Port.ValueInt64()), "/"
		if !rm.HTTPGet.Path.IsNull() {
			r.HTTPPath = rm.HTTPGet.Path.ValueString()
		}
	}
	return r
}

func (m *serviceModel) stopTimeout() time.Duration {
	d, err := time.ParseDuration(m.StopTimeout.ValueString())
	if err != nil {
		d, _ = time.ParseDuration(defaultStopTimeout)
	}
	return d
}

func (r *serviceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m serviceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	secretEnv := configEnvWO(ctx, req.Config, &resp.Diagnostics)
	spec := m.spec(ctx, secretEnv, &resp.Diagnostics)
	ready := m.readiness(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
	if err != nil {
		addEngineError(&resp.Diagnostics, "Opening the workspace of service "+spec.Name+" failed", err)
		return
	}
	proc, secrets, err := ws.StartService(ctx, spec)
	if err != nil {
		addEngineError(&resp.Diagnostics, "Starting service "+spec.Name+" failed", secrets.Error(err))
		return
	}
	if ready != nil {
		if err := ws.WaitServiceReady(ctx, proc, spec, *ready); err != nil {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.stopTimeout()+2*time.Minute)
			defer cancel()
			logTail := secrets.Text(ws.ServiceLogTail(stopCtx, spec.Name, serviceLogLines))
			rep, serr := ws.StopService(stopCtx, proc, m.stopTimeout())
			stopped := fmt.Sprintf("It was stopped: %d processes got SIGTERM, %d of them SIGKILL after stop_timeout.",
				rep.Terminated, rep.Killed)
			if serr != nil {
				stopped = "Stopping it failed too: " + secrets.Text(serr.Error())
			}
			resp.Diagnostics.AddAttributeError(path.Root("readiness"), "Service "+spec.Name+" did not become ready",
				fmt.Sprintf("%s. %s\n\nLast lines of its log (%s):\n%s", secrets.Text(err.Error()), stopped,
					serviceLogPath(spec.Name), logTail))
			return
		}
	}
	m.ID = types.StringValue(proc.Token)
	m.PID = types.Int64Value(int64(proc.PID))
	m.StartedAt = types.StringValue(proc.StartedAt.Format(time.RFC3339))
	m.Running = types.BoolValue(true)
	m.LogPath = types.StringValue(serviceLogPath(spec.Name))
	m.EnvironmentWO = types.MapNull(types.StringType)
	raw, _ := json.Marshal(proc)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, serviceProcessKey, raw)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// process is the recorded identity of the service's supervisor.
func serviceProcess(ctx context.Context, get func(context.Context, string) ([]byte, diag.Diagnostics), diags *diag.Diagnostics) (workspace.ServiceProcess, bool) {
	raw, d := get(ctx, serviceProcessKey)
	diags.Append(d...)
	var p workspace.ServiceProcess
	if len(raw) == 0 || json.Unmarshal(raw, &p) != nil || p.PID <= 1 || p.Token == "" {
		return p, false
	}
	return p, true
}

// Read records whether the service still runs; a vanished workspace takes
// the service along, and a stopped one leaves state as it is.
func (r *serviceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m serviceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
	if workspaceGone(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Opening the workspace of service "+m.Name.ValueString()+" failed", err)
		return
	}
	proc, ok := serviceProcess(ctx, req.Private.GetKey, &resp.Diagnostics)
	running := false
	if ok {
		running, err = ws.ServiceRunning(ctx, proc)
		if errors.Is(err, workspace.ErrWorkspaceStopped) {
			// A stopped workspace runs nothing, by its run_state or
			// expiry: that is the workspace's drift, not the service's.
			// Once it runs again, a service that did not come back shows.
			return
		}
		if err != nil {
			addEngineError(&resp.Diagnostics, "Checking service "+m.Name.ValueString()+" failed", err)
			return
		}
	}
	m.Running = types.BoolValue(running)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Update is never called with a change (every argument replaces); it
// records the plan.
func (r *serviceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m serviceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete stops every process of the service: SIGTERM, then SIGKILL after
// stop_timeout.
func (r *serviceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m serviceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	proc, ok := serviceProcess(ctx, req.Private.GetKey, &resp.Diagnostics)
	if resp.Diagnostics.HasError() || !ok {
		return
	}
	ws, err := r.eng.Open(ctx, m.WorkspaceID.ValueString())
	if workspaceGone(err) {
		return
	}
	if err != nil {
		addEngineError(&resp.Diagnostics, "Opening the workspace of service "+m.Name.ValueString()+" failed", err)
		return
	}
	if _, err := ws.StopService(ctx, proc, m.stopTimeout()); err != nil {
		if errors.Is(err, workspace.ErrWorkspaceStopped) {
			return // a stopped container runs nothing
		}
		addEngineError(&resp.Diagnostics, "Stopping service "+m.Name.ValueString()+" failed", err)
	}
}
