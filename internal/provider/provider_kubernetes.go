package provider

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// kubernetesProviderModel is the provider's `kubernetes {}` block: how to
// reach the cluster of `kubernetes {}` workspaces.
type kubernetesProviderModel struct {
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigContext        types.String `tfsdk:"config_context"`
	Host                 types.String `tfsdk:"host"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
}

func kubernetesProviderBlock() schema.Block {
	str := func(desc string, sensitive bool) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Sensitive: sensitive, MarkdownDescription: desc}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "The cluster of `kubernetes {}` workspaces. Without it (or with it empty): the kubeconfig of " +
			"`$KUBECONFIG` or `~/.kube/config`, else the in-cluster configuration of a provider running in a pod. The cluster " +
			"is contacted only when a kubernetes workspace is used. [RBAC the provider needs](../guides/kubernetes).",
		Attributes: map[string]schema.Attribute{
			"config_path":    str("Kubeconfig file (`~` is the home directory). Conflicts with `host`.", false),
			"config_context": str("Context of the kubeconfig to use. Default: its current context.", false),
			"host":           str("API server URL (`https://host:port`), instead of a kubeconfig; needs `token` or `client_certificate` and `client_key`.", false),
			"cluster_ca_certificate": str("PEM CA certificate verifying the API server given by `host`. Default: the "+
				"system's roots.", false),
			"token":              str("Bearer token for `host`. Sensitive. Provider settings are never stored in state.", true),
			"client_certificate": str("PEM client certificate for `host` (goes with `client_key`).", false),
			"client_key":         str("PEM private key of `client_certificate`. Sensitive.", true),
		},
	}
}

// kubernetesConfig is the engine's configuration of the block (zero when
// it is absent).
func kubernetesConfig(m *kubernetesProviderModel) spec.KubernetesConfig {
	if m == nil {
		return spec.KubernetesConfig{}
	}
	return spec.KubernetesConfig{
		ConfigPath: m.ConfigPath.ValueString(), ConfigContext: m.ConfigContext.ValueString(), Host: m.Host.ValueString(),
		ClusterCACertificate: m.ClusterCACertificate.ValueString(), Token: m.Token.ValueString(),
		ClientCertificate: m.ClientCertificate.ValueString(), ClientKey: m.ClientKey.ValueString(),
	}
}
