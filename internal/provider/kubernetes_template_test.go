package provider

import (
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// A template with every setting lands in the SandboxTemplate's pod
// template as the workspace pod has it, imports without a difference, and
// drops its claim template, privilege and managed network policy in place.
func TestAccKubernetesTemplate_allSettings(t *testing.T) {
	e := newPoolEnv(t)
	config := func(extra string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
  kubernetes {
    config_path = %q
  }
}

resource "sandbox_kubernetes_template" "t" {
  name               = "busybox"
  namespace          = %q
  image              = %q
  image_pull_policy  = "IfNotPresent"
  labels             = { team = "evals" }
  service_account    = "runner"
  node_selector      = { "kubernetes.io/os" = "linux" }
  runtime_class_name = "gvisor"
  resources          = { requests = { cpu = "50m" }, limits = { memory = "64Mi" } }
  environment        = { FOO = "one" }
  %s
}
`, e.base, os.Getenv("KUBECONFIG"), e.ns, kubetest.BusyboxImage, extra)
	}
	full := `
  privileged             = true
  managed_network_policy = true
  volume_claim_template  = { size = "2Gi" }
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             e.checkAllGone,
		Steps: []resource.TestStep{
			{
				Config: config(full),
				Check: resource.ComposeAggregateTestCheckFunc(
					e.checkTemplateFields(true),
					e.checkClaimTemplate("2Gi", ""),
					resource.TestCheckResourceAttr("sandbox_kubernetes_template.t", "root", "/workspace"),
				),
			},
			{ResourceName: "sandbox_kubernetes_template.t", ImportState: true, ImportStateId: e.ns + "/busybox", ImportStateVerify: true},
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("sandbox_kubernetes_template.t", plancheck.ResourceActionUpdate)},
				},
				Check: e.checkTemplateFields(false),
			},
		},
	})
}

// checkTemplateFields: the SandboxTemplate's pod template carries the
// settings of TestAccKubernetesTemplate_allSettings; privileged says
// whether the container is privileged, the network policy managed and the
// root on a claim.
func (e *poolEnv) checkTemplateFields(privileged bool) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, c, err := e.templateContainer("busybox")
		if err != nil {
			return err
		}
		spec, _, _ := unstructured.NestedMap(obj, "spec", "podTemplate", "spec")
		labels, _, _ := unstructured.NestedStringMap(obj, "spec", "podTemplate", "metadata", "labels")
		npm, _, _ := unstructured.NestedString(obj, "spec", "networkPolicyManagement")
		_, hasClaims, _ := unstructured.NestedSlice(obj, "spec", "volumeClaimTemplates")
		priv, _, _ := unstructured.NestedBool(c, "securityContext", "privileged")
		want := map[string]any{
			"serviceAccountName": "runner", "runtimeClassName": "gvisor",
			"nodeSelector": map[string]any{"kubernetes.io/os": "linux"},
		}
		for k, v := range want {
			if !reflect.DeepEqual(spec[k], v) {
				return fmt.Errorf("pod template %s = %v, want %v", k, spec[k], v)
			}
		}
		res := fmt.Sprint(c["resources"])
		wantNPM := map[bool]string{true: "Managed", false: "Unmanaged"}[privileged]
		if labels["team"] != "evals" || c["imagePullPolicy"] != "IfNotPresent" || res != "map[limits:map[memory:64Mi] requests:map[cpu:50m]]" ||
			priv != privileged || npm != wantNPM || hasClaims != privileged {
			return fmt.Errorf("labels %v, pull policy %v, resources %s, privileged %v, networkPolicyManagement %q, claims %v",
				labels, c["imagePullPolicy"], res, priv, npm, hasClaims)
		}
		return nil
	}
}
