package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// dockerModel is the docker {} block.
type dockerModel struct {
	Image       types.String `tfsdk:"image"`
	PullPolicy  types.String `tfsdk:"pull_policy"`
	NetworkMode types.String `tfsdk:"network_mode"`
	Labels      types.Map    `tfsdk:"labels"`
	FUSE        types.Bool   `tfsdk:"fuse"`
	Volumes     types.List   `tfsdk:"volumes"`
	Restart     types.String `tfsdk:"restart_policy"`
	Hostname    types.String `tfsdk:"hostname"`
	Healthcheck types.Object `tfsdk:"healthcheck"`
	isolationModel
	networkingModel
}

// reservedLabels are set by the provider on every workspace container.
var reservedLabels = []string{"sandbox.workspace_id", "sandbox.root"}

// validateDocker checks the docker block and the attributes it constrains
// at plan time, each error on its attribute.
func validateDocker(ctx context.Context, m workspaceModel, diags *diag.Diagnostics) {
	var d dockerModel
	diags.Append(m.Docker.As(ctx, &d, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return
	}
	if d.Image.IsNull() || (!d.Image.IsUnknown() && strings.TrimSpace(d.Image.ValueString()) == "") {
		diags.AddAttributeError(path.Root("docker").AtName("image"), "Missing image",
			"a docker block needs an image, such as image = \"python:3.12-slim\"")
	}
	if !d.Labels.IsNull() && !d.Labels.IsUnknown() {
		for _, k := range reservedLabels {
			if _, ok := d.Labels.Elements()[k]; ok {
				diags.AddAttributeError(path.Root("docker").AtName("labels").AtMapKey(k), "Reserved label",
					"label "+k+" is set by the provider on every workspace container and cannot be given")
			}
		}
	}
	if d.NetworkMode.ValueString() == "none" && !m.ExposedPorts.IsNull() && (m.ExposedPorts.IsUnknown() || len(m.ExposedPorts.Elements()) > 0) {
		diags.AddAttributeError(path.Root("exposed_ports"), "Exposed ports need a network", spec.NetworkNoneMessage)
	}
	if !d.Hostname.IsUnknown() && !d.NetworkMode.IsUnknown() {
		if err := (spec.Docker{Hostname: d.Hostname.ValueString(), NetworkMode: d.NetworkMode.ValueString()}).CheckHostname(); err != nil {
			diags.AddAttributeError(path.Root("docker").AtName("hostname"), "Host name with a shared network namespace", err.Error())
		}
	}
	root := m.Root.ValueString()
	switch {
	case m.Root.IsUnknown():
		root = ""
	case m.Root.IsNull():
		root = workspace.DefaultDockerRoot
	}
	if err := workspace.CheckDockerRoot(root); err != nil {
		diags.AddAttributeError(path.Root("root"), "Unusable workspace root", err.Error())
	}
	validateVolumes(ctx, d.Volumes, root, diags)
	validateIsolation(ctx, d, m, root, diags)
	validateNetworking(ctx, d, diags)
	validateDockerGrants(ctx, m, d, root, diags)
}

// dockerSpec builds the engine's spec from a planned model.
func dockerSpec(ctx context.Context, m workspaceModel, diags *diag.Diagnostics) spec.Docker {
	var d dockerModel
	diags.Append(m.Docker.As(ctx, &d, basetypes.ObjectAsOptions{})...)
	s := spec.Docker{
		Image: d.Image.ValueString(), PullPolicy: d.PullPolicy.ValueString(), NetworkMode: d.NetworkMode.ValueString(),
		FUSE: d.FUSE.ValueBool(), Root: m.Root.ValueString(), ExposedPorts: ports(m), RestartPolicy: d.Restart.ValueString(),
		Hostname: d.Hostname.ValueString(),
	}
	diags.Append(d.Labels.ElementsAs(ctx, &s.Labels, false)...)
	s.Healthcheck = healthcheckOf(ctx, d.Healthcheck, diags)
	s.WaitUntil = m.WaitUntil.ValueString()
	s.Isolation, _ = d.isolation(ctx, diags)
	s.Networking, _ = d.networking(ctx, diags)
	s.Grants, _, _ = workspaceGrants(ctx, m.ExtraPathGrants, diags)
	if !d.Volumes.IsNull() {
		s.Volumes, _, _ = volumeMounts(ctx, d.Volumes, s.Root, diags)
	}
	mf := manifestSpec(ctx, m, diags)
	s.Environment, s.Users, s.Groups = mf.Environment, mf.Users, mf.Groups
	return s
}

// workspaceManifest is the manifest part of a planned workspace: what a
// container or pod is created with.
type workspaceManifest struct {
	Environment  map[string]string
	ExposedPorts []int
	Users        []sandbox.User
	Groups       []sandbox.Group
}

// manifestSpec reads environment, exposed_ports, users and groups of a
// planned model.
func manifestSpec(ctx context.Context, m workspaceModel, diags *diag.Diagnostics) workspaceManifest {
	mf := workspaceManifest{ExposedPorts: ports(m)}
	diags.Append(m.Environment.ElementsAs(ctx, &mf.Environment, false)...)
	var users []userModel
	diags.Append(m.Users.ElementsAs(ctx, &users, false)...)
	for _, u := range users {
		mf.Users = append(mf.Users, sandbox.User{Name: u.Name.ValueString()})
	}
	var groups []groupModel
	diags.Append(m.Groups.ElementsAs(ctx, &groups, false)...)
	for _, g := range groups {
		grp := sandbox.Group{Name: g.Name.ValueString(), Users: []sandbox.User{}}
		var members []userModel
		diags.Append(g.Users.ElementsAs(ctx, &members, false)...)
		for _, u := range members {
			grp.Users = append(grp.Users, sandbox.User{Name: u.Name.ValueString()})
		}
		mf.Groups = append(mf.Groups, grp)
	}
	return mf
}

type userModel struct {
	Name types.String `tfsdk:"name"`
}

type groupModel struct {
	Name  types.String `tfsdk:"name"`
	Users types.List   `tfsdk:"users"`
}

// dockerObject is the docker block as the daemon describes an imported
// container whose workspace root is root; pull_policy is not recorded by
// the daemon and stays null.
func dockerObject(info spec.DockerInfo, root string) types.Object {
	labels := types.MapNull(types.StringType)
	if len(info.Labels) > 0 {
		vals := map[string]attr.Value{}
		for k, v := range info.Labels {
			vals[k] = types.StringValue(v)
		}
		labels = types.MapValueMust(types.StringType, vals)
	}
	nm, fuse := types.StringNull(), types.BoolNull()
	if info.NetworkMode != "" {
		nm = types.StringValue(info.NetworkMode)
	}
	if info.FUSE {
		fuse = types.BoolValue(true)
	}
	vals := isolationValues(info.Isolation, info.FUSE)
	maps.Copy(vals, networkingValues(info.Networking))
	maps.Copy(vals, map[string]attr.Value{
		"image": types.StringValue(info.Image), "pull_policy": types.StringNull(), "network_mode": nm,
		"labels": labels, "fuse": fuse, "volumes": volumesList(info.Volumes, root),
		"restart_policy": types.StringValue(info.RestartPolicy),
		"hostname":       nullIfEmpty(info.Hostname),
		"healthcheck":    healthcheckObject(info.Healthcheck),
	})
	return types.ObjectValueMust(dockerAttrTypes, vals)
}

var groupAttrTypes = map[string]attr.Type{
	"name":  types.StringType,
	"users": types.ListType{ElemType: types.ObjectType{AttrTypes: userAttrTypes}},
}

// importedSpec sets exposed_ports, environment, users and groups of an
// imported docker workspace from what its container records, so the plan
// after an import does not replace the container.
func importedSpec(info spec.DockerInfo, m *workspaceModel) {
	importedManifest(info.ExposedPorts, info.Environment, info.Users, info.Groups, m)
}

// importedManifest sets exposed_ports, environment, users and groups of an
// imported workspace to what its container or pod was created with.
func importedManifest(exposedPorts []int, environment map[string]string, users []sandbox.User, groups []sandbox.Group, m *workspaceModel) {
	userList := func(list []sandbox.User) types.List {
		objs := make([]attr.Value, 0, len(list))
		for _, u := range list {
			objs = append(objs, types.ObjectValueMust(userAttrTypes, map[string]attr.Value{"name": types.StringValue(u.Name)}))
		}
		return types.ListValueMust(types.ObjectType{AttrTypes: userAttrTypes}, objs)
	}
	if len(exposedPorts) > 0 {
		ports := make([]attr.Value, 0, len(exposedPorts))
		for _, p := range exposedPorts {
			ports = append(ports, types.Int64Value(int64(p)))
		}
		m.ExposedPorts = types.ListValueMust(types.Int64Type, ports)
	}
	if len(environment) > 0 {
		env := make(map[string]attr.Value, len(environment))
		for k, v := range environment {
			env[k] = types.StringValue(v)
		}
		m.Environment = types.MapValueMust(types.StringType, env)
	}
	if len(users) > 0 {
		m.Users = userList(users)
	}
	if len(groups) > 0 {
		vals := make([]attr.Value, 0, len(groups))
		for _, g := range groups {
			members := types.ListNull(types.ObjectType{AttrTypes: userAttrTypes})
			if len(g.Users) > 0 {
				members = userList(g.Users)
			}
			vals = append(vals, types.ObjectValueMust(groupAttrTypes, map[string]attr.Value{
				"name": types.StringValue(g.Name), "users": members,
			}))
		}
		m.Groups = types.ListValueMust(types.ObjectType{AttrTypes: groupAttrTypes}, vals)
	}
}
