package provider

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/egress"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// egressBypassCaps are the capabilities with which the agent could get
// round the egress rules of its own network namespace, and why.
var egressBypassCaps = map[string]string{
	"NET_ADMIN": "with CAP_NET_ADMIN the agent could remove the egress rules from its own network namespace",
	"NET_RAW": "with CAP_NET_RAW the agent could send frames through a packet socket (AF_PACKET), which leaves below " +
		"the netfilter hooks that hold the egress rules",
	"ALL": "ALL includes CAP_NET_ADMIN, with which the agent could remove the egress rules from its own network " +
		"namespace, and CAP_NET_RAW, whose packet sockets leave below them",
}

// validateEgress checks the egress attribute at plan time: every rule,
// and that the workspace has a network namespace of its own that the
// agent cannot reprogram.
func validateEgress(ctx context.Context, m workspaceModel, kind string, diags *diag.Diagnostics) {
	if m.Egress.IsNull() || m.Egress.IsUnknown() {
		return
	}
	at := path.Root("egress")
	switch kind {
	case "local":
		diags.AddAttributeError(at, "Egress needs a network of its own",
			"a local workspace is a directory on this machine: it has no network of its own, so an egress policy cannot be "+
				"enforced for it (it would be the host's). Use a docker workspace.")
		return
	case "kubernetes":
		b := kubeBlock(ctx, m.Kubernetes, diags)
		if b.Privileged.ValueBool() {
			diags.AddAttributeError(at, "Egress cannot be used with privileged = true",
				"a privileged container has CAP_NET_ADMIN, with which the agent could remove the egress rules from its own "+
					"network namespace: remove privileged from the kubernetes block, or egress.")
		}
	case "docker":
		var d dockerModel
		if diags.Append(m.Docker.As(ctx, &d, basetypes.ObjectAsOptions{})...); diags.HasError() {
			return
		}
		if nm := d.NetworkMode.ValueString(); nm == "none" || nm == "host" || strings.HasPrefix(nm, "container:") {
			why := "network_mode \"none\" has no network to reach: egress has nothing to filter."
			switch {
			case nm == "host":
				why = "network_mode \"host\" shares the host's network namespace, and the provider never changes the host's rules."
			case nm != "none":
				why = "network_mode \"" + nm + "\" shares another container's network namespace, whose traffic egress would restrict too."
			}
			diags.AddAttributeError(at, "Egress cannot be used with network_mode \""+nm+"\"", why)
		}
		for _, c := range knownStrings(d.CapAdd) {
			if why, ok := egressBypassCaps[strings.TrimPrefix(strings.ToUpper(c), "CAP_")]; ok {
				diags.AddAttributeError(at, "Egress cannot be used with cap_add "+c, why+": remove "+c+" from cap_add, or egress.")
			}
		}
	}
	var em egressModel
	if diags.Append(m.Egress.As(ctx, &em, basetypes.ObjectAsOptions{})...); diags.HasError() {
		return
	}
	for _, set := range []struct {
		name string
		list types.List
	}{{"allow", em.Allow}, {"deny", em.Deny}} {
		if set.list.IsUnknown() {
			continue
		}
		for i, v := range set.list.Elements() {
			validateEgressRule(ctx, at.AtName(set.name).AtListIndex(i), v, diags)
		}
	}
}

func validateEgressRule(ctx context.Context, at path.Path, v attr.Value, diags *diag.Diagnostics) {
	obj, ok := v.(types.Object)
	if !ok || obj.IsUnknown() || obj.IsNull() {
		return
	}
	var r egressRuleModel
	if diags.Append(obj.As(ctx, &r, basetypes.ObjectAsOptions{})...); diags.HasError() {
		return
	}
	if !r.CIDR.IsUnknown() && !r.Host.IsUnknown() && r.CIDR.IsNull() == r.Host.IsNull() {
		diags.AddAttributeError(at, "Invalid egress rule", "exactly one of cidr or host must be set")
	}
	if !r.CIDR.IsNull() && !r.CIDR.IsUnknown() {
		if _, err := egress.ParseCIDR(r.CIDR.ValueString()); err != nil {
			diags.AddAttributeError(at.AtName("cidr"), "Invalid egress cidr", err.Error())
		}
	}
	if !r.Host.IsNull() && !r.Host.IsUnknown() {
		if err := egress.ValidateHost(r.Host.ValueString()); err != nil {
			diags.AddAttributeError(at.AtName("host"), "Invalid egress host", err.Error())
		}
		if r.Protocol.ValueString() == egress.ProtoICMP {
			diags.AddAttributeError(at.AtName("protocol"), "Invalid egress rule",
				`protocol "icmp" cannot be used with host: give the addresses as cidr`)
		}
	}
	if r.Ports.IsNull() || r.Ports.IsUnknown() {
		return
	}
	if len(r.Ports.Elements()) > egress.MaxPorts {
		diags.AddAttributeError(at.AtName("ports"), "Too many egress ports", "at most 32 ports per rule: split the rule")
	}
	if r.Protocol.ValueString() == egress.ProtoICMP && len(r.Ports.Elements()) > 0 {
		diags.AddAttributeError(at.AtName("ports"), "Invalid egress rule", `ports cannot be used with protocol "icmp"`)
	}
	for j, p := range r.Ports.Elements() {
		if n, ok := p.(types.Int64); ok && !n.IsUnknown() && !n.IsNull() {
			if err := egress.ValidatePort(int(n.ValueInt64())); err != nil {
				diags.AddAttributeError(at.AtName("ports").AtListIndex(j), "Invalid egress port", err.Error())
			}
		}
	}
}

// egressPolicy is the policy of a known egress attribute.
func egressPolicy(ctx context.Context, obj types.Object, diags *diag.Diagnostics) (egress.Policy, egressModel) {
	var em egressModel
	diags.Append(obj.As(ctx, &em, basetypes.ObjectAsOptions{})...)
	p := egress.Policy{Default: em.Default.ValueString()}
	p.Allow = egressRules(ctx, em.Allow, diags)
	p.Deny = egressRules(ctx, em.Deny, diags)
	return p, em
}

func egressRules(ctx context.Context, l types.List, diags *diag.Diagnostics) []egress.Rule {
	var rs []egressRuleModel
	diags.Append(l.ElementsAs(ctx, &rs, false)...)
	var out []egress.Rule
	for _, r := range rs {
		var ports []int64
		diags.Append(r.Ports.ElementsAs(ctx, &ports, false)...)
		rule := egress.Rule{CIDR: r.CIDR.ValueString(), Host: r.Host.ValueString(), Protocol: r.Protocol.ValueString()}
		for _, p := range ports {
			rule.Ports = append(rule.Ports, int(p))
		}
		out = append(out, rule)
	}
	return out
}

// egressObject is the egress attribute of p as read back.
func egressObject(p egress.Policy, resolved map[string][]string) types.Object {
	rules := func(rs []egress.Rule) types.List {
		if len(rs) == 0 {
			return types.ListNull(types.ObjectType{AttrTypes: egressRuleAttrTypes})
		}
		return objectList(egressRuleAttrTypes, rs, func(r egress.Rule) map[string]attr.Value {
			ports := types.ListNull(types.Int64Type)
			if len(r.Ports) > 0 {
				var vs []attr.Value
				for _, p := range r.Ports {
					vs = append(vs, types.Int64Value(int64(p)))
				}
				ports = types.ListValueMust(types.Int64Type, vs)
			}
			cidr, host := types.StringNull(), types.StringNull()
			if r.CIDR != "" {
				cidr = types.StringValue(r.CIDR)
			}
			if r.Host != "" {
				host = types.StringValue(r.Host)
			}
			pr := r.Protocol
			if pr == "" {
				pr = egress.ProtoAny
			}
			return map[string]attr.Value{"cidr": cidr, "host": host, "ports": ports, "protocol": types.StringValue(pr)}
		})
	}
	return types.ObjectValueMust(egressAttrTypes, map[string]attr.Value{
		"default": types.StringValue(p.Default), "allow": rules(p.Allow), "deny": rules(p.Deny), "resolved": resolvedValue(resolved),
	})
}

func resolvedValue(resolved map[string][]string) types.Map {
	vs := map[string]attr.Value{}
	for h, addrs := range resolved {
		var l []attr.Value
		for _, a := range addrs {
			l = append(l, types.StringValue(a))
		}
		vs[h] = types.ListValueMust(types.StringType, l)
	}
	return types.MapValueMust(types.ListType{ElemType: types.StringType}, vs)
}

// sameEgress compares two policies as enforced: a cidr and its canonical
// prefix, an unset protocol and "any", unset and empty ports are the same.
func sameEgress(a, b egress.Policy) bool {
	norm := func(p egress.Policy) egress.Policy {
		fix := func(rs []egress.Rule) []egress.Rule {
			out := make([]egress.Rule, 0, len(rs))
			for _, r := range rs {
				if pr, err := egress.ParseCIDR(r.CIDR); err == nil {
					r.CIDR = pr.String()
				}
				if r.Protocol == "" {
					r.Protocol = egress.ProtoAny
				}
				if len(r.Ports) == 0 {
					r.Ports = nil
				}
				out = append(out, r)
			}
			return out
		}
		return egress.Policy{Default: p.Default, Allow: fix(p.Allow), Deny: fix(p.Deny)}
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// applyEgress enforces the planned policy in the workspace (the planned
// addresses of its hosts when known, else resolved now) and records the
// addresses in m; with no policy planned it removes one prior had.
func applyEgress(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, prior *workspaceModel, diags *diag.Diagnostics) {
	if m.Egress.IsNull() {
		if prior != nil && !prior.Egress.IsNull() {
			if err := eng.RemoveEgress(ctx, w); err != nil {
				addEngineAttributeError(diags, path.Root("egress"), "Removing the egress policy failed", err)
			}
		}
		return
	}
	p, em := egressPolicy(ctx, m.Egress, diags)
	if diags.HasError() {
		return
	}
	resolved := map[string][]string{}
	if !em.Resolved.IsUnknown() && !em.Resolved.IsNull() {
		diags.Append(em.Resolved.ElementsAs(ctx, &resolved, false)...)
	}
	if hosts := p.Hosts(); em.Resolved.IsUnknown() || !slices.Equal(sortedKeys(resolved), sortedCopy(hosts)) {
		var err error
		if resolved, err = workspace.ResolveEgress(ctx, p); err != nil {
			addEngineAttributeError(diags, path.Root("egress"), "Resolving egress hosts failed", err)
			return
		}
	}
	if err := eng.ApplyEgress(ctx, w, p, resolved); err != nil {
		addEngineAttributeError(diags, path.Root("egress"), "Enforcing the egress policy failed", err)
		return
	}
	m.Egress = egressObject(p, resolved)
	// Keep the configuration's spelling of the rules.
	var d diag.Diagnostics
	em.Resolved = resolvedValue(resolved)
	obj, dd := types.ObjectValueFrom(ctx, egressAttrTypes, em)
	if d.Append(dd...); !d.HasError() {
		m.Egress = obj
	}
}

// updateEgress enforces the planned policy on an update. A stopped or
// paused workspace gets its rules when it runs again (the refresh then
// shows them missing).
func updateEgress(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, prior workspaceModel, diags *diag.Diagnostics) {
	if rs := m.RunState.ValueString(); rs == workspace.RunStopped || rs == workspace.RunPaused {
		deferEgress(ctx, m, prior)
		return
	}
	applyEgress(ctx, eng, w, m, &prior, diags)
}

// deferEgress records, for a workspace left stopped or paused, the
// planned policy with the addresses last enforced (none when unknown): the
// rules are programmed once it runs again, after the refresh shows them
// missing.
func deferEgress(ctx context.Context, m *workspaceModel, prior workspaceModel) {
	if m.Egress.IsNull() || m.Egress.IsUnknown() {
		return
	}
	var em egressModel
	if d := m.Egress.As(ctx, &em, basetypes.ObjectAsOptions{}); d.HasError() || !em.Resolved.IsUnknown() {
		return
	}
	em.Resolved = resolvedValue(nil)
	var pm egressModel
	if !prior.Egress.IsNull() && !prior.Egress.As(ctx, &pm, basetypes.ObjectAsOptions{}).HasError() && !pm.Resolved.IsUnknown() && !pm.Resolved.IsNull() {
		em.Resolved = pm.Resolved
	}
	if obj, d := types.ObjectValueFrom(ctx, egressAttrTypes, em); !d.HasError() {
		m.Egress = obj
	}
}

// readEgress reads back what the workspace's network namespace enforces:
// nothing (the rules were removed out of band, or the container restarted
// with a new namespace) leaves egress unset, so that the plan puts it
// back; another policy is recorded as read. A stopped workspace has no
// namespace to read: state stays. importing reads it even without a
// policy in state.
func readEgress(ctx context.Context, eng *workspace.Engine, w *workspace.Workspace, m *workspaceModel, importing bool, diags *diag.Diagnostics) {
	if (w.Kind != "docker" && w.Kind != "kubernetes") || !w.Running || (m.Egress.IsNull() && !importing) {
		return
	}
	p, resolved, ok, err := eng.ReadEgress(ctx, w)
	if errors.Is(err, workspace.ErrWorkspaceStopped) && !importing {
		// A pod's egress container restarting: the rules are the
		// kernel's and stay; state keeps the policy last enforced.
		diags.AddAttributeWarning(path.Root("egress"), "The egress policy could not be read back", err.Error()+
			"; the plan assumes the policy last enforced is still in place.")
		return
	}
	if err != nil {
		if !importing {
			addEngineAttributeError(diags, path.Root("egress"), "Reading the egress policy failed", err)
		}
		return
	}
	if !ok {
		m.Egress = types.ObjectNull(egressAttrTypes)
		return
	}
	if !m.Egress.IsNull() {
		var d diag.Diagnostics
		had, em := egressPolicy(ctx, m.Egress, &d)
		if !d.HasError() && sameEgress(had, p) {
			em.Resolved = resolvedValue(resolved)
			obj, dd := types.ObjectValueFrom(ctx, egressAttrTypes, em)
			if d.Append(dd...); !d.HasError() {
				m.Egress = obj
				return
			}
		}
	}
	m.Egress = egressObject(p, resolved)
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
