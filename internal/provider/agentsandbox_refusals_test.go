package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// An agent_sandbox block's bad settings fail the plan on their attribute,
// without contacting any cluster (none is configured here).
func TestAccAgentSandboxWorkspace_planRefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	const pool, inline = `warm_pool = "pool"`, `image = "busybox"`
	cases := map[string]struct{ block, extra, want string }{
		"both":            {pool + "\n" + inline, "", `warm_pool and image together`},
		"neither":         {"", "", `Missing warm_pool or image`},
		"namespace":       {`namespace = "Bad_Namespace"` + "\n" + inline, "", `"Bad_Namespace" is not a namespace name`},
		"no namespace":    {"namespace = null\n" + inline, "", `an agent_sandbox block needs namespace`},
		"pool name":       {`warm_pool = "Pool_1"`, "", `"Pool_1" is not a SandboxWarmPool name`},
		"pod with pool":   {pool + "\n" + `runtime_class_name = "gvisor"`, "", `runtime_class_name with warm_pool`},
		"volume w/ pool":  {pool + "\n" + `volume_claim_template = { size = "1Gi" }`, "", `volume_claim_template with warm_pool`},
		"root with pool":  {pool, `root = "/work"`, `a claimed Sandbox's root is its template's root`},
		"env with pool":   {pool, `environment = { A = "1" }`, `set environment on the sandbox_kubernetes_template`},
		"volume size":     {inline + "\n" + `volume_claim_template = { size = "0" }`, "", `volume size "0" must be more than zero`},
		"volume quantity": {inline + "\n" + `volume_claim_template = { size = "lots" }`, "", `volume size "lots" is not a Kubernetes quantity`},
		"quantity":        {inline + "\n" + `resources = { requests = { cpu = "lots" } }`, "", `cpu = "lots" is not a Kubernetes quantity`},
		"ports":           {inline, `exposed_ports = [8080]`, `exposes no ports yet`},
		"paused":          {inline, `run_state = "paused"`, `a Sandbox can be suspended`},
		"env wo":          {inline, `environment_wo = { K = "v" }`, `agent_sandbox workspaces take no write-only environment`},
		"egress":          {inline, `egress = { default = "deny" }`, `agent_sandbox pods do not have`},
		"host path":       {inline, `extra_path_grants = [{ path = "/data", host_path = "/srv/data" }]`, `does not mount host paths`},
		"start timeout":   {inline + "\n" + `start_timeout = "soon"`, "", `start_timeout must be a positive duration`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ns := `namespace = "agents"`
			if name == "namespace" || name == "no namespace" {
				ns = ""
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
  agent_sandbox {
    %s
    %s
  }
  %s
}
`, env.base, ns, c.block, c.extra),
					PlanOnly:    true,
					ExpectError: errRe(c.want),
				}},
			})
		})
	}
}
