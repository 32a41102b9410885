package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// A kubernetes block's bad settings fail the plan on their attribute,
// without contacting any cluster (none is configured here).
func TestAccPodWorkspace_planRefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cases := map[string]struct{ block, extra, want string }{
		"namespace":       {`namespace = "Bad_Namespace"`, "", `namespace "Bad_Namespace" is not a namespace name`},
		"quantity":        {`resources = { requests = { cpu = "lots" } }`, "", `cpu = "lots" is not a Kubernetes quantity`},
		"negative":        {`resources = { limits = { memory = "-1Gi" } }`, "", `memory = "-1Gi" is negative`},
		"over limit":      {`resources = { requests = { memory = "1Gi" }, limits = { memory = "128Mi" } }`, "", `is more than its limit "128Mi"`},
		"start timeout":   {`start_timeout = "soon"`, "", `start_timeout must be a positive duration`},
		"pull policy":     {`image_pull_policy = "never"`, "", `value must be one of`},
		"env wo":          {"", `environment_wo = { K = "v" }`, `kubernetes workspaces take no write-only environment`},
		"host path":       {"", `extra_path_grants = [{ path = "/data", host_path = "/srv/data" }]`, `does not mount host paths`},
		"empty namespace": {`namespace = ""`, "", `the kubernetes block's namespace must not be empty or blank`},
		"blank image":     {`image = "  "`, "", `the kubernetes block's image must not be empty or blank`},
		"resource name":   {`resources = { requests = { CPU = "1" } }`, "", `"CPU" is not a container resource`},
		"reserved label":  {`labels = { "sandbox.workspace_id" = "x" }`, "", `the label "sandbox.workspace_id" is set by the provider`},
		"label value":     {`labels = { team = "has spaces" }`, "", `is not a label value`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ns, image := `namespace = "agents"`, `image = "busybox"`
			if strings.Contains(c.block, "namespace") {
				ns = ""
			}
			if strings.Contains(c.block, "image =") {
				image = ""
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				TerraformVersionChecks:   requireTF111,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
resource "sandbox_workspace" "ws" {
  kubernetes {
    %s
    %s
    %s
  }
  %s
}
`, env.base, ns, image, c.block, c.extra),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}

// A new pod workspace fails the plan when the provider's cluster
// configuration cannot be read: a missing kubeconfig, an unknown context.
// A readable one plans without contacting its cluster (an address where
// nothing listens).
func TestAccPodWorkspace_clusterConfigAtPlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	kubeconfig := env.writeSource("kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: not-a-secret}}]
current-context: a
`, 0o600)
	config := func(block string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
  kubernetes {
    %s
  }
}
resource "sandbox_workspace" "ws" {
  kubernetes {
    namespace = "agents"
    image     = "busybox"
  }
}
`, env.base, block)
	}
	for name, c := range map[string]struct{ block, want string }{
		"missing file": {fmt.Sprintf("config_path = %q", kubeconfig+".missing"),
			"no such file or directory. Fix the provider's kubernetes block"},
		"unknown context": {fmt.Sprintf("config_path = %q\n    config_context = \"nope\"", kubeconfig),
			`context "nope" does not exist. Fix the provider's kubernetes block`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				TerraformVersionChecks:   requireTF111,
				Steps:                    []resource.TestStep{{Config: config(c.block), PlanOnly: true, ExpectError: errRe("No usable Kubernetes cluster configuration")}, {Config: config(c.block), PlanOnly: true, ExpectError: errRe(c.want)}},
			})
		})
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config: config(fmt.Sprintf("config_path = %q", kubeconfig)), PlanOnly: true, ExpectNonEmptyPlan: true,
		}},
	})
}

// A data source lookup by keys no pod can have fails naming the key,
// before any cluster is contacted (none is configured here).
func TestAccPodWorkspace_dataSourceLookupRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ lookup, want string }{
		"namespace": {`namespace = "Agents", pod_name = "sandbox-x"`, `namespace "Agents" is not a namespace name`},
		"pod name":  {`namespace = "agents", pod_name = "sandbox_x"`, `pod_name "sandbox_x" is not a pod name`},
		"label key": {`namespace = "agents", labels = { "bad key" = "x" }`, `labels: "bad key" is not a label key`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				TerraformVersionChecks:   requireTF111,
				Steps: []resource.TestStep{{
					Config:      `data "sandbox_workspace" "w" { kubernetes = { ` + c.lookup + ` } }`,
					PlanOnly:    true,
					ExpectError: errRe("Invalid kubernetes lookup"),
				}, {
					Config:      `data "sandbox_workspace" "w" { kubernetes = { ` + c.lookup + ` } }`,
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}
