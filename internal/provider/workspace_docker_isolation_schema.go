package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

const (
	sizeDesc    = "A size as Docker's command line takes it: bytes with an optional binary unit `b`, `k`, `m`, `g` (`\"64m\"`, `\"1g\"`)."
	liveDesc    = "Changed in place on the running container (`docker update`); removing it replaces the container."
	replaceDesc = "Changing it replaces the container."
	// liveLimitDesc is liveDesc for a limit that always has a value.
	liveLimitDesc = "Changed in place on the running container (`docker update`)."
	// defaultPidsLimit is pids_limit when unset.
	defaultPidsLimit = 1024
)

// isolationAttributes are the docker block's limits and hardening.
func isolationAttributes() map[string]schema.Attribute {
	str := func(desc string, v ...validator.String) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc, Validators: v}
	}
	strMap := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	caps := func(desc string) schema.SetAttribute {
		return schema.SetAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	flag := func(def bool, desc string) schema.BoolAttribute {
		return schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(def), MarkdownDescription: desc}
	}
	baseline := "`" + strings.Join(spec.DockerBaselineCaps, "`, `") + "`"
	size := func(desc string) schema.StringAttribute {
		a := str(desc)
		a.PlanModifiers = []planmodifier.String{sameSizeKeepsState{}}
		return a
	}
	return map[string]schema.Attribute{
		"memory": size("Hard memory limit of the container. " + sizeDesc + " At least `6m`. A command the out-of-memory killer " +
			"stops exits with 137 and fails saying it ran out of memory. Unset: no limit. " + liveDesc),
		"memory_swap": size("Memory plus swap the container may use. " + sizeDesc + " Default: equal to `memory`, so no swap; " +
			"`\"-1\"` for unlimited swap. Needs `memory`. Changed in place (`docker update`)."),
		"cpus": schema.Float64Attribute{Optional: true, MarkdownDescription: "CPUs the container may use, such as `1.5`. Unset: " +
			"no limit. " + liveDesc, Validators: []validator.Float64{float64validator.AtLeast(0.01)}},
		"pids_limit": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultPidsLimit),
			MarkdownDescription: "Most processes (and threads) the container may run at once; a fork beyond it fails. " +
				"Keep it at least `16`: the provider's own `docker exec` calls need processes. `-1`: no limit (as " +
				"`docker run --pids-limit -1`). Default `1024`, so a fork loop cannot exhaust the host's processes. " + liveLimitDesc,
			Validators: []validator.Int64{int64validator.Any(int64validator.OneOf(-1), int64validator.AtLeast(1))}},
		"disk": size("Size limit of the workspace root, a tmpfs of this size: a write beyond it fails with ENOSPC. " +
			"[Held in memory, and lost when the container stops](#limits-and-hardening). " + sizeDesc + " At least `1m`. Unset: no limit. " + replaceDesc),
		"shm_size": size("Size of `/dev/shm`. " + sizeDesc + " Default: Docker's `64m`. " + replaceDesc),
		"tmpfs": strMap("tmpfs mounts, absolute path to mount options (`{ \"/tmp\" = \"size=256m\" }`), as " +
			"`docker run --tmpfs`. Not at the root when `disk` is set. " + replaceDesc),
		"ulimits": strMap("Ulimits, name to `\"soft:hard\"` or one number for both (`{ nofile = \"1024:2048\" }`). " +
			replaceDesc),
		"no_new_privileges": flag(true, "Set no-new-privileges: no process, setuid binaries included, can gain privileges "+
			"it did not start with. Default `true`. "+replaceDesc),
		"cap_add": caps("Capabilities added to the default set (names with or without `CAP_`; `\"ALL\"` for every one). " +
			"The container drops every capability but " + baseline + ", which the provider's own file operations " +
			"need, and `SYS_ADMIN` with `fuse`. " + replaceDesc),
		"cap_drop": caps("Capabilities removed from the default set (" + baseline + "); `\"ALL\"` keeps only `cap_add`. " +
			"Without `CHOWN` a `group` cannot be set, without `DAC_OVERRIDE` and `FOWNER` entries in directories the " +
			"provider does not own cannot be written. " + replaceDesc),
		"read_only_rootfs": flag(false, "Mount the image's filesystem read-only. The root, `/tmp` and the file helper's "+
			"directory stay writable (anonymous volumes removed with the container, unless `disk`, `tmpfs` or `volumes` "+
			"cover them). `users` and `groups` cannot be provisioned then. Default `false`. "+replaceDesc),
		"security_opt": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Docker " +
			"security options passed as given (`\"seccomp=<profile>\"`, `\"apparmor=<profile>\"`, `\"label=...\"`). " + replaceDesc},
		"init": flag(true, "Run Docker's init as process 1, so orphaned processes are reaped. Default `true`. "+replaceDesc),
		"user": str("User the container's long-lived process runs as, and commands without `user`: a user the image "+
			"has, or `uid[:gid]` (the accounts of `users` are created after the container starts). Unset: the image's "+
			"user. The file helper always runs as root. "+replaceDesc, stringvalidator.LengthAtLeast(1)),
		"runtime": str("OCI runtime of the container by its name on the Docker daemon, such as `\"runsc\"` (gVisor) or "+
			"`\"kata\"`; a name the daemon does not have fails the plan, listing those it has. Unset: the daemon's "+
			"default. "+replaceDesc, stringvalidator.LengthAtLeast(1)),
	}
}

// replaceIfIsolationChanges replaces the container when an isolation
// setting Docker cannot change on a running container changes, or a live
// limit (memory, cpus, pids_limit) is removed; other live limit changes
// are applied in place by Update.
type replaceIfIsolationChanges struct{}

func (replaceIfIsolationChanges) Description(context.Context) string {
	return "changing a limit other than memory, memory_swap, cpus or pids_limit, or a hardening setting, replaces the container"
}

func (m replaceIfIsolationChanges) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (replaceIfIsolationChanges) PlanModifyObject(ctx context.Context, req planmodifier.ObjectRequest, resp *planmodifier.ObjectResponse) {
	if req.StateValue.IsNull() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	var st, pl dockerModel
	var diags diag.Diagnostics
	diags.Append(req.StateValue.As(ctx, &st, basetypes.ObjectAsOptions{})...)
	diags.Append(req.PlanValue.As(ctx, &pl, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return
	}
	have, _ := st.isolation(ctx, &diags)
	want, complete := pl.isolation(ctx, &diags)
	if diags.HasError() {
		return
	}
	if !complete {
		resp.RequiresReplace = true
		return
	}
	fuse := pl.FUSE.ValueBool()
	for _, f := range isoFields(fuse) {
		switch f.name {
		case "memory_swap":
			continue
		case "memory", "cpus", "pids_limit":
			if !f.same(have, want) && f.value(want).IsNull() {
				resp.RequiresReplace = true
			}
		default:
			if !f.same(have, want) {
				resp.RequiresReplace = true
			}
		}
	}
}
