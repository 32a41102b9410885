package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// isolationModel is the limits and hardening part of the docker block.
type isolationModel struct {
	Memory          types.String  `tfsdk:"memory"`
	MemorySwap      types.String  `tfsdk:"memory_swap"`
	CPUs            types.Float64 `tfsdk:"cpus"`
	PidsLimit       types.Int64   `tfsdk:"pids_limit"`
	Disk            types.String  `tfsdk:"disk"`
	ShmSize         types.String  `tfsdk:"shm_size"`
	Tmpfs           types.Map     `tfsdk:"tmpfs"`
	Ulimits         types.Map     `tfsdk:"ulimits"`
	NoNewPrivileges types.Bool    `tfsdk:"no_new_privileges"`
	CapAdd          types.Set     `tfsdk:"cap_add"`
	CapDrop         types.Set     `tfsdk:"cap_drop"`
	ReadOnlyRootfs  types.Bool    `tfsdk:"read_only_rootfs"`
	SecurityOpt     types.List    `tfsdk:"security_opt"`
	Init            types.Bool    `tfsdk:"init"`
	User            types.String  `tfsdk:"user"`
	Runtime         types.String  `tfsdk:"runtime"`
}

var dockerPath = path.Root("docker")

// isolation converts the model to the engine's settings. Bad values are
// reported on their attribute; unknown ones are skipped and make complete
// false.
func (im isolationModel) isolation(ctx context.Context, diags *diag.Diagnostics) (iso spec.DockerIsolation, complete bool) {
	complete = true
	size := func(name string, v types.String) int64 {
		if v.IsUnknown() {
			complete = false
		}
		if v.IsNull() || v.IsUnknown() {
			return 0
		}
		n, err := spec.ParseDockerSize(v.ValueString())
		if name == "memory_swap" && v.ValueString() == "-1" {
			return -1
		}
		if err != nil {
			diags.AddAttributeError(dockerPath.AtName(name), "Invalid size", err.Error())
		}
		if err == nil && n == 0 {
			diags.AddAttributeError(dockerPath.AtName(name), "Invalid size", fmt.Sprintf("%s = %q is zero bytes, which Docker "+
				"takes as no limit: leave %s unset for no limit, or give a positive size", name, v.ValueString(), name))
		}
		return n
	}
	iso.Memory, iso.MemorySwap = size("memory", im.Memory), size("memory_swap", im.MemorySwap)
	iso.Disk, iso.ShmSize = size("disk", im.Disk), size("shm_size", im.ShmSize)
	iso.NanoCPUs = spec.DockerCPUs(im.CPUs.ValueFloat64())
	if iso.PidsLimit = im.PidsLimit.ValueInt64(); iso.PidsLimit < 0 {
		iso.PidsLimit = 0 // -1: no limit
	}
	iso.NoNewPrivileges, iso.ReadOnlyRootfs, iso.Init = im.NoNewPrivileges.ValueBool(), im.ReadOnlyRootfs.ValueBool(), im.Init.ValueBool()
	iso.User, iso.Runtime = im.User.ValueString(), im.Runtime.ValueString()
	for _, v := range []attr.Value{im.CPUs, im.PidsLimit, im.NoNewPrivileges, im.ReadOnlyRootfs, im.Init, im.User, im.Runtime,
		im.Tmpfs, im.Ulimits, im.CapAdd, im.CapDrop, im.SecurityOpt} {
		complete = complete && !v.IsUnknown()
	}
	// A collection given by a variable known only at apply (cap_add =
	// var.caps) is unknown, or has unknown elements, at validate and plan:
	// it is left for the apply, never converted (that is an error).
	var ulimits map[string]string
	if partlyUnknown(im.Tmpfs) || partlyUnknown(im.Ulimits) || partlyUnknown(im.SecurityOpt) {
		complete = false
	}
	if !partlyUnknown(im.Tmpfs) {
		diags.Append(im.Tmpfs.ElementsAs(ctx, &iso.Tmpfs, false)...)
	}
	if !partlyUnknown(im.Ulimits) {
		diags.Append(im.Ulimits.ElementsAs(ctx, &ulimits, false)...)
	}
	for _, name := range slices.Sorted(maps.Keys(ulimits)) {
		u, err := spec.ParseDockerUlimit(name, ulimits[name])
		if err != nil {
			diags.AddAttributeError(dockerPath.AtName("ulimits").AtMapKey(name), "Invalid ulimit", err.Error())
			continue
		}
		if iso.Ulimits == nil {
			iso.Ulimits = map[string]spec.DockerUlimit{}
		}
		iso.Ulimits[name] = u
	}
	caps := func(name string, set types.Set) []string {
		var out []string
		if partlyUnknown(set) {
			complete = false
		}
		for _, c := range knownStrings(set) {
			n, err := spec.NormalizeDockerCap(c)
			if err != nil {
				diags.AddAttributeError(dockerPath.AtName(name), "Unknown capability", err.Error())
				continue
			}
			out = append(out, n)
		}
		return out
	}
	iso.CapAdd, iso.CapDrop = caps("cap_add", im.CapAdd), caps("cap_drop", im.CapDrop)
	if !partlyUnknown(im.SecurityOpt) {
		diags.Append(im.SecurityOpt.ElementsAs(ctx, &iso.SecurityOpt, false)...)
	}
	return iso, complete
}

// addIsolationError reports a *spec.DockerFieldError on its
// attribute; it reports whether err was one.
func addIsolationError(diags *diag.Diagnostics, summary string, err error) bool {
	var fe *spec.DockerFieldError
	if !errors.As(err, &fe) {
		return false
	}
	diags.AddAttributeError(dockerPath.AtName(fe.Field), summary, fe.Err.Error())
	return true
}

// validateIsolation checks the isolation attributes at plan time.
func validateIsolation(ctx context.Context, d dockerModel, m workspaceModel, root string, diags *diag.Diagnostics) {
	var local diag.Diagnostics
	iso, complete := d.isolation(ctx, &local)
	diags.Append(local...)
	if local.HasError() || !complete || root == "" || d.Volumes.IsUnknown() || m.Users.IsUnknown() || m.Groups.IsUnknown() {
		return
	}
	var vols []spec.VolumeMount
	if !d.Volumes.IsNull() {
		vols, _, _ = volumeMounts(ctx, d.Volumes, root, &local)
	}
	accounts := len(m.Users.Elements())+len(m.Groups.Elements()) > 0
	addIsolationError(diags, "Unusable isolation setting", workspace.CheckDockerIsolation(iso, root, vols, accounts))
}

// isoField is one isolation attribute: whether two settings agree on it,
// and its value from a setting read back from the daemon.
type isoField struct {
	name  string
	same  func(a, b spec.DockerIsolation) bool
	value func(spec.DockerIsolation) attr.Value
}

func sizeValue(n int64) attr.Value {
	if n == 0 {
		return types.StringNull()
	}
	return types.StringValue(spec.FormatDockerSize(n))
}

func stringMapValue(m map[string]string) attr.Value {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	vals := map[string]attr.Value{}
	for k, v := range m {
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}

func stringsValue(l []string, set bool) attr.Value {
	vals := make([]attr.Value, 0, len(l))
	for _, s := range l {
		vals = append(vals, types.StringValue(s))
	}
	switch {
	case set && len(l) == 0:
		return types.SetNull(types.StringType)
	case set:
		return types.SetValueMust(types.StringType, vals)
	case len(l) == 0:
		return types.ListNull(types.StringType)
	}
	return types.ListValueMust(types.StringType, vals)
}

func swapOf(iso spec.DockerIsolation) int64 {
	if iso.MemorySwap == 0 {
		return iso.Memory
	}
	return iso.MemorySwap
}

func shmOf(iso spec.DockerIsolation) int64 {
	if iso.ShmSize == 0 {
		return 64 << 20
	}
	return iso.ShmSize
}

// isoFields lists every isolation attribute; fuse tells whether SYS_ADMIN
// comes with the FUSE grant.
func isoFields(fuse bool) []isoField {
	caps := func(a, b spec.DockerIsolation) bool {
		aa, ad := spec.CanonicalDockerCaps(a.CapAdd, a.CapDrop, fuse)
		ba, bd := spec.CanonicalDockerCaps(b.CapAdd, b.CapDrop, fuse)
		return slices.Equal(aa, ba) && slices.Equal(ad, bd)
	}
	sorted := func(l []string) []string { return slices.Sorted(slices.Values(l)) }
	return []isoField{
		{"memory", func(a, b spec.DockerIsolation) bool { return a.Memory == b.Memory },
			func(i spec.DockerIsolation) attr.Value { return sizeValue(i.Memory) }},
		{"memory_swap", func(a, b spec.DockerIsolation) bool { return swapOf(a) == swapOf(b) },
			func(i spec.DockerIsolation) attr.Value { return sizeValue(i.MemorySwap) }},
		{"cpus", func(a, b spec.DockerIsolation) bool { return a.NanoCPUs == b.NanoCPUs },
			func(i spec.DockerIsolation) attr.Value {
				if i.NanoCPUs == 0 {
					return types.Float64Null()
				}
				return types.Float64Value(float64(i.NanoCPUs) / 1e9)
			}},
		{"pids_limit", func(a, b spec.DockerIsolation) bool { return a.PidsLimit == b.PidsLimit },
			func(i spec.DockerIsolation) attr.Value {
				if i.PidsLimit == 0 {
					return types.Int64Value(-1) // no limit
				}
				return types.Int64Value(i.PidsLimit)
			}},
		{"disk", func(a, b spec.DockerIsolation) bool { return a.Disk == b.Disk },
			func(i spec.DockerIsolation) attr.Value { return sizeValue(i.Disk) }},
		{"shm_size", func(a, b spec.DockerIsolation) bool { return shmOf(a) == shmOf(b) },
			func(i spec.DockerIsolation) attr.Value { return sizeValue(i.ShmSize) }},
		{"tmpfs", func(a, b spec.DockerIsolation) bool { return maps.Equal(a.Tmpfs, b.Tmpfs) },
			func(i spec.DockerIsolation) attr.Value { return stringMapValue(i.Tmpfs) }},
		{"ulimits", func(a, b spec.DockerIsolation) bool { return maps.Equal(a.Ulimits, b.Ulimits) },
			func(i spec.DockerIsolation) attr.Value {
				m := map[string]string{}
				for k, u := range i.Ulimits {
					m[k] = u.String()
				}
				return stringMapValue(m)
			}},
		{"no_new_privileges", func(a, b spec.DockerIsolation) bool { return a.NoNewPrivileges == b.NoNewPrivileges },
			func(i spec.DockerIsolation) attr.Value { return types.BoolValue(i.NoNewPrivileges) }},
		{"cap_add", caps, func(i spec.DockerIsolation) attr.Value { return stringsValue(i.CapAdd, true) }},
		{"cap_drop", caps, func(i spec.DockerIsolation) attr.Value { return stringsValue(i.CapDrop, true) }},
		{"read_only_rootfs", func(a, b spec.DockerIsolation) bool { return a.ReadOnlyRootfs == b.ReadOnlyRootfs },
			func(i spec.DockerIsolation) attr.Value { return types.BoolValue(i.ReadOnlyRootfs) }},
		{"security_opt", func(a, b spec.DockerIsolation) bool {
			return slices.Equal(sorted(a.SecurityOpt), sorted(b.SecurityOpt))
		},
			func(i spec.DockerIsolation) attr.Value { return stringsValue(i.SecurityOpt, false) }},
		{"init", func(a, b spec.DockerIsolation) bool { return a.Init == b.Init },
			func(i spec.DockerIsolation) attr.Value { return types.BoolValue(i.Init) }},
		{"user", func(a, b spec.DockerIsolation) bool { return a.User == b.User },
			func(i spec.DockerIsolation) attr.Value { return nullIfEmpty(i.User) }},
		{"runtime", func(a, b spec.DockerIsolation) bool { return a.Runtime == b.Runtime },
			func(i spec.DockerIsolation) attr.Value { return nullIfEmpty(i.Runtime) }},
	}
}

// isolationValues are the isolation attributes of an imported container.
func isolationValues(iso spec.DockerIsolation, fuse bool) map[string]attr.Value {
	vals := map[string]attr.Value{}
	for _, f := range isoFields(fuse) {
		vals[f.name] = f.value(iso)
	}
	return vals
}

// refreshIsolation sets, in the docker block of state, every isolation
// attribute on which the container (info) disagrees with it to what the
// container has, so the plan shows the drift; attributes that agree keep
// their spelling.
func refreshIsolation(ctx context.Context, block types.Object, info spec.DockerInfo, diags *diag.Diagnostics) types.Object {
	return patchDocker(ctx, block, diags, func(d dockerModel, set func(string, attr.Value)) {
		have, _ := d.isolation(ctx, &diag.Diagnostics{})
		for _, f := range isoFields(info.FUSE) {
			if !f.same(have, info.Isolation) {
				set(f.name, f.value(info.Isolation))
			}
		}
	})
}

// liveLimits reports whether the limits Docker changes on a running
// container (memory, memory_swap, cpus, pids_limit) differ between state
// and plan.
func liveLimits(a, b spec.DockerIsolation) bool {
	return a.Memory != b.Memory || swapOf(a) != swapOf(b) || a.NanoCPUs != b.NanoCPUs || a.PidsLimit != b.PidsLimit
}

// updateLimits applies changed live limits of the docker block to the
// running container.
func updateLimits(ctx context.Context, eng *workspace.Engine, req resource.UpdateRequest, w *workspace.Workspace, diags *diag.Diagnostics) {
	sd, pd, ok := dockerBlocks(ctx, req, diags)
	if !ok {
		return
	}
	have, _ := sd.isolation(ctx, diags)
	want, _ := pd.isolation(ctx, diags)
	if diags.HasError() || !liveLimits(have, want) {
		return
	}
	if err := eng.UpdateDockerLimits(ctx, w, want); err != nil {
		addEngineAttributeError(diags, dockerPath, "Updating the container's limits failed", err)
	}
}

// planRuntime refuses, at plan time, a runtime the Docker daemon does not
// have; a daemon that cannot be asked now is left to the apply.
func planRuntime(ctx context.Context, eng *workspace.Engine, req resource.ModifyPlanRequest, plan workspaceModel, diags *diag.Diagnostics) {
	if plan.Docker.IsNull() || plan.Docker.IsUnknown() {
		return
	}
	var rt, old types.String
	diags.Append(req.Plan.GetAttribute(ctx, dockerPath.AtName("runtime"), &rt)...)
	if !req.State.Raw.IsNull() {
		diags.Append(req.State.GetAttribute(ctx, dockerPath.AtName("runtime"), &old)...)
	}
	if rt.IsNull() || rt.IsUnknown() || rt.Equal(old) {
		return
	}
	err := eng.CheckDockerRuntime(ctx, rt.ValueString())
	if errors.Is(err, spec.ErrUnknownDockerRuntime) {
		addIsolationError(diags, "Unknown runtime", err)
	}
}
