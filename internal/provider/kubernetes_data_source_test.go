package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccKubernetesWorkspace_dataSource finds a pod workspace by its id, by
// namespace and pod name, and by namespace and labels: each gives the
// workspace's id, kind, pod and endpoints; labels no pod carries, and a
// pod that is not a workspace, are errors naming what was looked for.
func TestAccKubernetesWorkspace_dataSource(t *testing.T) {
	env := newKubeEnv(t)
	ws := env.config(`labels = { team = "evals" }`, "exposed_ports = [8080]", "")
	lookups := fmt.Sprintf(`
data "sandbox_workspace" "by_id" {
  id = sandbox_workspace.ws.id
}

data "sandbox_workspace" "by_name" {
  kubernetes = { namespace = %[1]q, pod_name = sandbox_workspace.ws.kubernetes.pod_name }
}

data "sandbox_workspace" "by_labels" {
  kubernetes = { namespace = %[1]q, labels = { team = "evals" } }
  depends_on = [sandbox_workspace.ws]
}
`, env.ns)
	same := func(name string) resource.TestCheckFunc {
		ds := "data.sandbox_workspace." + name
		return resource.ComposeTestCheckFunc(
			resource.TestCheckResourceAttrPair(ds, "id", "sandbox_workspace.ws", "id"),
			resource.TestCheckResourceAttrPair(ds, "kubernetes.pod_name", "sandbox_workspace.ws", "kubernetes.pod_name"),
			resource.TestCheckResourceAttr(ds, "kubernetes.namespace", env.ns),
			resource.TestCheckResourceAttr(ds, "kind", "kubernetes"),
			resource.TestCheckResourceAttr(ds, "running", "true"),
			resource.TestCheckResourceAttrPair(ds, "endpoints.0.host", "sandbox_workspace.ws", "endpoints.0.host"),
			resource.TestCheckNoResourceAttr(ds, "container_id"),
		)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: ws + lookups,
				Check:  resource.ComposeTestCheckFunc(same("by_id"), same("by_name"), same("by_labels")),
			},
			{
				Config: ws + fmt.Sprintf(`
data "sandbox_workspace" "none" {
  kubernetes = { namespace = %q, labels = { team = "nobody" } }
}
`, env.ns),
				ExpectError: errRe("no workspace pod in namespace " + env.ns + " carries the labels team=nobody"),
			},
			{
				Config: ws + fmt.Sprintf(`
data "sandbox_workspace" "other" {
  kubernetes = { namespace = %q, pod_name = "not-a-workspace" }
}
`, env.ns),
				ExpectError: errRe(`namespace ` + env.ns + ` has no pod "not-a-workspace"`),
			},
		},
	})
}
