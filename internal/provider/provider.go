// Package provider is the Terraform face of the sandbox engine: schemas,
// plan modifiers and validators, then calls into internal/sandbox. It never
// touches files or containers itself.
package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/agentsandbox/sandbox"

// DefaultLocalBaseDir is local_base_dir when the provider block omits it.
const DefaultLocalBaseDir = ".sandbox"

var (
	_ provider.Provider                       = (*sandboxProvider)(nil)
	_ provider.ProviderWithFunctions          = (*sandboxProvider)(nil)
	_ provider.ProviderWithEphemeralResources = (*sandboxProvider)(nil)
)

type sandboxProvider struct {
	version string
}

// New returns a constructor for the provider, as providerserver expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &sandboxProvider{version: version} }
}

type providerModel struct {
	WorkingDir      types.String             `tfsdk:"working_dir"`
	LocalBaseDir    types.String             `tfsdk:"local_base_dir"`
	AllowHardLinks  types.Bool               `tfsdk:"allow_hard_links"`
	ExtraPathGrants []grantModel             `tfsdk:"extra_path_grants"`
	DockerHost      types.String             `tfsdk:"docker_host"`
	DockerCertPath  types.String             `tfsdk:"docker_cert_path"`
	DockerCAPEM     types.String             `tfsdk:"docker_ca_pem"`
	DockerCertPEM   types.String             `tfsdk:"docker_cert_pem"`
	DockerKeyPEM    types.String             `tfsdk:"docker_key_pem"`
	Kubernetes      *kubernetesProviderModel `tfsdk:"kubernetes"`
	MaxBytes        types.Int64              `tfsdk:"max_bytes"`
	MaxFiles        types.Int64              `tfsdk:"max_files"`
}

type grantModel struct {
	Path        types.String `tfsdk:"path"`
	ReadOnly    types.Bool   `tfsdk:"read_only"`
	Description types.String `tfsdk:"description"`
	HostPath    types.String `tfsdk:"host_path"`
}

func (p *sandboxProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "sandbox"
	resp.Version = p.version
}

func (p *sandboxProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Declares agent sandbox workspaces (a local directory, a Docker container or a Kubernetes pod) and the entries that fill them, " +
			"following the sandbox workspace model of openai-agents-python.",
		Blocks: map[string]schema.Block{"kubernetes": kubernetesProviderBlock()},
		Attributes: map[string]schema.Attribute{
			"working_dir": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Absolute directory that host sources (`source` of `sandbox_file` and `sandbox_local_dir`) " +
					"and a relative `local_base_dir` are relative to. Default: the provider's working directory, which is " +
					"Terraform's when Terraform starts the provider. Set `working_dir = abspath(path.root)` when the provider runs " +
					"elsewhere (started by hand with `-debug`).",
				Validators: []validator.String{absolutePathValidator{}},
			},
			"local_base_dir": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Directory that holds default local workspace roots (`<local_base_dir>/<uuid>`). Relative " +
					"paths are relative to `working_dir`. Default `" + DefaultLocalBaseDir + "`. Changing it leaves existing " +
					"workspaces where they are: their ids say where. The file system root `/` is refused at plan time.",
				Validators: []validator.String{localBaseDirValidator},
			},
			"allow_hard_links": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Copy host source files that have more than one hard link (package stores such as pnpm's " +
					"use them). Default `false`: such a file fails with reason `hard_link_not_supported`, naming it, since a " +
					"hard link can give a name inside the working directory to a file outside it and outside every grant.",
			},
			"docker_host": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Docker daemon for `docker {}` workspaces: `unix:///path`, `tcp://host:port` or " +
					"`ssh://[user@]host[:port]` (which runs `ssh ... docker system dial-stdio` with your ssh configuration). " +
					"Default `$DOCKER_HOST`, else `unix:///var/run/docker.sock`. The daemon is contacted only when a docker " +
					"workspace is used.",
			},
			"docker_cert_path": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Directory with `ca.pem`, `cert.pem` and `key.pem` for a `tcp://` daemon, as the docker " +
					"CLI's `DOCKER_CERT_PATH` (the default; with only `DOCKER_TLS_VERIFY` set, `~/.docker`). The daemon's " +
					"certificate is always verified: material without `ca.pem` is an error, never a silent skip of verification.",
			},
			"docker_ca_pem": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "PEM CA certificate verifying a `tcp://` daemon; with `docker_cert_pem` and `docker_key_pem` " +
					"it replaces `docker_cert_path`. Required whenever client material is given.",
			},
			"docker_cert_pem": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "PEM client certificate for a `tcp://` daemon (goes with `docker_key_pem`).",
			},
			"docker_key_pem": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "PEM private key of `docker_cert_pem`. Sensitive: never shown in plans or logs " +
					"(provider configuration is never stored in state).",
			},
			"extra_path_grants": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "Host paths outside Terraform's working directory that host sources (`sandbox_file.source`, " +
					"`sandbox_local_dir.source`) may read from; the Python SDK's `SandboxPathGrant`. Without a grant, a " +
					"source outside the working directory fails with reason `outside_base_dir`.",
				NestedObject: schema.NestedAttributeObject{
					Attributes: map[string]schema.Attribute{
						"path": schema.StringAttribute{
							Required: true,
							MarkdownDescription: "POSIX-absolute path (normalised: `/tmp/` becomes `/tmp`). Must not be the filesystem " +
								"root. Errors use the Python SDK's messages, e.g. `sandbox path grant path must be POSIX absolute`.",
						},
						"read_only": schema.BoolAttribute{
							Optional:            true,
							MarkdownDescription: "Whether the grant is read-only. Default `false`. Host sources are only ever read.",
						},
						"description": schema.StringAttribute{
							Optional:            true,
							MarkdownDescription: "Free text describing the grant.",
						},
						"host_path": schema.StringAttribute{
							Optional: true,
							MarkdownDescription: "Native host path backing `path` (for Docker bind mounts); when set, sources are " +
								"checked against it instead of `path`. No UNC or device paths, no `..` segments, not the root.",
						},
					},
				},
			},
		},
	}
	for name, a := range providerLimitAttributes() {
		resp.Schema.Attributes[name] = a
	}
}

func (p *sandboxProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	wd, err := os.Getwd()
	if err != nil {
		resp.Diagnostics.AddError("Cannot determine the working directory", err.Error())
		return
	}
	if !cfg.WorkingDir.IsNull() && !cfg.WorkingDir.IsUnknown() {
		wd = filepath.Clean(cfg.WorkingDir.ValueString())
	}
	base := DefaultLocalBaseDir
	if !cfg.LocalBaseDir.IsNull() && !cfg.LocalBaseDir.IsUnknown() {
		base = cfg.LocalBaseDir.ValueString()
	}
	if !filepath.IsAbs(base) {
		base = filepath.Join(wd, base)
	}
	if err := workspace.CheckLocalBaseDir(base); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("local_base_dir"), "Invalid local_base_dir", err.Error())
		return
	}
	grants := make([]posix.PathGrant, 0, len(cfg.ExtraPathGrants))
	for i, g := range cfg.ExtraPathGrants {
		grant, gerr := grantFromModel(g)
		if gerr != nil {
			field := "path"
			value := g.Path.ValueString()
			if p := grantErrorPath(i, gerr); p.Equal(path.Root("extra_path_grants").AtListIndex(i).AtName("host_path")) {
				field, value = "host_path", g.HostPath.ValueString()
			}
			resp.Diagnostics.AddAttributeError(grantErrorPath(i, gerr), "Invalid extra path grant",
				fmt.Sprintf("extra_path_grants[%d].%s = %q: %s", i, field, value, gerr.Error()))
			continue
		}
		grants = append(grants, grant)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	dockerCfg := spec.DockerConfig{
		Host: cfg.DockerHost.ValueString(), CertPath: cfg.DockerCertPath.ValueString(),
		CAPEM: cfg.DockerCAPEM.ValueString(), CertPEM: cfg.DockerCertPEM.ValueString(), KeyPEM: cfg.DockerKeyPEM.ValueString(),
	}
	if dockerCfg != (spec.DockerConfig{}) {
		// Only settings made in this block are checked here; the
		// environment's are checked when a docker workspace is used, so a
		// broken DOCKER_* variable never fails a configuration without one.
		if err := workspace.CheckDockerHost(dockerCfg); err != nil {
			resp.Diagnostics.AddAttributeError(dockerErrorPath(dockerCfg), "Invalid Docker daemon settings", err.Error())
			return
		}
	}
	kubeCfg := kubernetesConfig(cfg.Kubernetes)
	if err := workspace.ValidateKubernetesConfig(kubeCfg); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("kubernetes"), "Invalid Kubernetes cluster settings", err.Error())
		return
	}
	eng := workspace.New(workspace.Config{LocalBaseDir: filepath.Clean(base), WorkingDir: wd, Grants: grants, Docker: dockerCfg,
		Kubernetes: kubeCfg, AllowHardLinks: cfg.AllowHardLinks.ValueBool()})
	eng.OutputLimits = outputLimits(cfg.MaxBytes, cfg.MaxFiles, sandbox.OutputLimits{})
	resp.ResourceData = eng
	resp.DataSourceData = eng
	resp.EphemeralResourceData = eng
}

func (p *sandboxProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewWorkspaceResource,
		NewDirResource,
		NewFileResource,
		NewLocalDirResource,
		NewGitRepoResource,
		NewCommandResource,
		NewServiceResource,
		NewManifestResource,
		NewS3MountResource,
		NewGCSMountResource,
		NewR2MountResource,
		NewAzureBlobMountResource,
		NewBoxMountResource,
		NewS3FilesMountResource,
		NewSnapshotResource,
		NewExportResource,
		NewKubernetesTemplateResource,
		NewKubernetesWarmPoolResource,
	}
}

func (p *sandboxProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewExecDataSource,
		NewWorkspaceDataSource,
		NewWorkspacesDataSource,
		NewManifestDataSource,
		NewFileDataSource,
		NewChangesDataSource,
		NewSnapshotsDataSource,
	}
}

func (p *sandboxProvider) EphemeralResources(_ context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{NewExecEphemeralResource}
}

func (p *sandboxProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		NewParsePermissionsFunction,
		NewFormatPermissionsFunction,
		NewEndpointURLFunction,
		NewWorkspacePathFunction,
	}
}

func grantFromModel(g grantModel) (posix.PathGrant, error) {
	var desc, host *string
	if !g.Description.IsNull() {
		d := g.Description.ValueString()
		desc = &d
	}
	if !g.HostPath.IsNull() {
		h := g.HostPath.ValueString()
		host = &h
	}
	return posix.NewPathGrant(g.Path.ValueString(), g.ReadOnly.ValueBool(), desc, host)
}

func grantErrorPath(i int, err error) path.Path {
	p := path.Root("extra_path_grants").AtListIndex(i)
	var ge *posix.GrantError
	if errors.As(err, &ge) && ge.Field == "host_path" {
		return p.AtName("host_path")
	}
	return p.AtName("path")
}

// dockerErrorPath picks the attribute a Docker settings error belongs to.
func dockerErrorPath(c spec.DockerConfig) path.Path {
	switch {
	case c.CAPEM != "" || c.CertPEM != "" || c.KeyPEM != "":
		return path.Root("docker_ca_pem")
	case c.CertPath != "":
		return path.Root("docker_cert_path")
	}
	return path.Root("docker_host")
}
