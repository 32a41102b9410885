package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Bad names, sizes and pod settings of sandbox_kubernetes_template and
// sandbox_kubernetes_warm_pool fail the plan on their attribute, without
// any cluster (the provider block configures none).
func TestAccAgentSandboxPools_planRefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	const tpl = `resource "sandbox_kubernetes_template" "t" {
  name      = %s
  namespace = %s
  image     = "busybox"
  %s
}`
	const pool = `resource "sandbox_kubernetes_warm_pool" "p" {
  name      = %s
  namespace = "agents"
  template  = %s
  replicas  = %s
}`
	ok := `"python"`
	cases := map[string]struct{ body, want string }{
		"template name": {fmt.Sprintf(tpl, `"Python_3"`, ok, ""),
			`Invalid SandboxTemplate name|"Python_3" is not a SandboxTemplate name`},
		"template name too long": {fmt.Sprintf(tpl, hclString(longName(254)), ok, ""),
			`is not a SandboxTemplate name|must be no more than 253 characters`},
		"namespace": {fmt.Sprintf(tpl, ok, `"Agents.Team"`, ""), `Invalid namespace|namespace "Agents.Team" is not a namespace name`},
		"size negative": {fmt.Sprintf(tpl, ok, ok, `volume_claim_template = { size = "-1Gi" }`),
			`Invalid volume size|volume size "-1Gi" must be more than zero`},
		"size zero": {fmt.Sprintf(tpl, ok, ok, `volume_claim_template = { size = "0" }`),
			`volume size "0" must be more than zero`},
		"size not a quantity": {fmt.Sprintf(tpl, ok, ok, `volume_claim_template = { size = "lots" }`),
			`volume size "lots" is not a Kubernetes quantity`},
		"quantity": {fmt.Sprintf(tpl, ok, ok, `resources = { requests = { cpu = "lots" } }`),
			`Invalid SandboxTemplate setting|cpu = "lots" is not a Kubernetes quantity`},
		"over limit": {fmt.Sprintf(tpl, ok, ok, `resources = { requests = { memory = "1Gi" }, limits = { memory = "128Mi" } }`),
			`is more than its limit "128Mi"`},
		"label": {fmt.Sprintf(tpl, ok, ok, `labels = { team = "has spaces" }`), `is not a label value`},
		"reserved label": {fmt.Sprintf(tpl, ok, ok, `labels = { "app.kubernetes.io/managed-by" = "me" }`),
			`is set by the provider`},
		"pull policy":     {fmt.Sprintf(tpl, ok, ok, `image_pull_policy = "never"`), `value must be one of`},
		"service account": {fmt.Sprintf(tpl, ok, ok, `service_account = "Runner"`), `service_account "Runner" is not a Kubernetes object name`},
		"root":            {fmt.Sprintf(tpl, ok, ok, `root = "work"`), `root "work" must be an absolute, clean path`},
		"environment":     {fmt.Sprintf(tpl, ok, ok, `environment = { "A=B" = "x" }`), `Invalid environment variable name`},
		"pool name":       {fmt.Sprintf(pool, `"-pool"`, ok, "1"), `Invalid SandboxWarmPool name|"-pool" is not a SandboxWarmPool name`},
		"pool template":   {fmt.Sprintf(pool, ok, `"Python"`, "1"), `Invalid SandboxTemplate name|"Python" is not a SandboxTemplate name`},
		"replicas":        {fmt.Sprintf(pool, ok, ok, "-1"), `replicas value must be between 0 and 2147483647, got: -1`},
		"pool timeout": {fmt.Sprintf(pool, ok, ok, "1") + "\n" + `resource "sandbox_kubernetes_warm_pool" "q" {
  name      = "q"
  namespace = "agents"
  template  = "python"
  replicas  = 1
  timeouts { create = "0s" }
}`, `Invalid timeout|"0s" is not a positive duration`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				TerraformVersionChecks:   requireTF111,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
%s
`, env.base, c.body),
					PlanOnly:    true,
					ExpectError: errReAll(c.want),
				}},
			})
		})
	}
}

func longName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}
