package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/egress"
)

type egressModel struct {
	Default  types.String `tfsdk:"default"`
	Allow    types.List   `tfsdk:"allow"`
	Deny     types.List   `tfsdk:"deny"`
	Resolved types.Map    `tfsdk:"resolved"`
}

type egressRuleModel struct {
	CIDR     types.String `tfsdk:"cidr"`
	Host     types.String `tfsdk:"host"`
	Ports    types.List   `tfsdk:"ports"`
	Protocol types.String `tfsdk:"protocol"`
}

var egressRuleAttrTypes = map[string]attr.Type{
	"cidr": types.StringType, "host": types.StringType, "ports": types.ListType{ElemType: types.Int64Type}, "protocol": types.StringType,
}

var egressResolvedType = types.MapType{ElemType: types.ListType{ElemType: types.StringType}}

var egressAttrTypes = map[string]attr.Type{
	"default": types.StringType, "allow": types.ListType{ElemType: types.ObjectType{AttrTypes: egressRuleAttrTypes}},
	"deny": types.ListType{ElemType: types.ObjectType{AttrTypes: egressRuleAttrTypes}}, "resolved": egressResolvedType,
}

func egressRulesAttribute(verdict string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Destinations whose traffic is " + verdict + "ed (deny rules are checked before allow rules). " +
			"Each rule has exactly one of `cidr` or `host`.",
		Validators: []validator.List{listvalidator.SizeAtMost(egress.MaxRules)},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"cidr": schema.StringAttribute{Optional: true,
				MarkdownDescription: "An IPv4 or IPv6 address or prefix (`10.0.0.0/8`, `192.0.2.7`, `fd00::/8`); host bits must be zero."},
			"host": schema.StringAttribute{Optional: true,
				MarkdownDescription: "A DNS name, resolved by the provider at apply (its addresses are in `egress.resolved`, " +
					"re-resolved at every plan: a change is planned as an update). At most 180 characters; not with `protocol = \"icmp\"`."},
			"ports": schema.ListAttribute{Optional: true, ElementType: types.Int64Type,
				MarkdownDescription: "Destination ports (1-65535, at most 32); unset means every port. Not with `protocol = \"icmp\"`."},
			"protocol": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(egress.ProtoAny),
				MarkdownDescription: "`\"any\"` (default: TCP and UDP with `ports`, every protocol without), `\"tcp\"`, `\"udp\"` or `\"icmp\"`.",
				Validators:          []validator.String{stringvalidator.OneOf(egress.ProtoAny, egress.ProtoTCP, egress.ProtoUDP, egress.ProtoICMP)}},
		}},
	}
}

func egressAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Outbound network policy of a `docker` or `kubernetes` workspace, enforced in its network " +
			"namespace out of the agent's reach (see \"Network egress\"). Loopback, replies, and DNS when a rule names a " +
			"`host` are always allowed. Refused on `local` workspaces, `network_mode` `\"none\"`/`\"host\"`, `NET_ADMIN` in " +
			"`cap_add` and `privileged` pods. Added to a pod created without it, replaces the pod.",
		Attributes: map[string]schema.Attribute{
			"default": schema.StringAttribute{Required: true,
				MarkdownDescription: "What happens to traffic no rule matches: `\"deny\"` or `\"allow\"`.",
				Validators:          []validator.String{stringvalidator.OneOf(egress.Deny, egress.Allow)}},
			"allow": egressRulesAttribute("allow"),
			"deny":  egressRulesAttribute("deni"),
			"resolved": schema.MapAttribute{Computed: true, ElementType: types.ListType{ElemType: types.StringType},
				MarkdownDescription: "The addresses each `host` of the rules resolved to, as enforced (sorted, at most 16 per host)."},
		},
	}
}
