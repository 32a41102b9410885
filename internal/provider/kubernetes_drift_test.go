package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

const kubeManifestExec = `
variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_file" "from_source" {
  workspace_id = sandbox_workspace.ws.id
  path         = "src/tool.sh"
  source       = %q
  permissions  = "0755"
}

resource "sandbox_file" "secret" {
  workspace_id       = sandbox_workspace.ws.id
  path               = ".secrets/token"
  content_wo         = var.token
  content_wo_version = 1
  permissions        = "0600"
}

resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({
    root = "/workspace"
    entries = {
      "tasks" = { type = "dir", children = {
        "README.md" = { type = "file", content = "read me\n" }
      } }
      "notes/a.txt" = { type = "file", content = "alpha\n" }
    }
  })
}

data "sandbox_exec" "probe" {
  workspace_id = sandbox_manifest.m.workspace_id
  shell        = "cat tasks/README.md notes/a.txt; id -un; echo $PWD"
  user         = "agent"
}
`

// TestAccKubernetesWorkspace_manifestExecDrift: a manifest, a file from a
// host source and a write-only secret file land in a pod (checked by exec:
// bytes and modes, the manifest's the Python SDK's default 0755; the
// secret nowhere in state); sandbox_exec reads them
// as a user; content and mode changed in the pod out of band, and a
// deleted manifest file, show in the next plan and the apply puts them back.
func TestAccKubernetesWorkspace_manifestExecDrift(t *testing.T) {
	env := newKubeEnv(t)
	env.writeSource("tool.sh", "#!/bin/sh\necho tool\n", 0o755)
	cfg := env.config("", `users = [{ name = "agent" }]`, fmt.Sprintf(kubeManifestExec, env.src+"/tool.sh"))
	vars := config.Variables{"token": config.StringVariable("s3cr3t-pod-token")}
	inPod := func(script string) func() {
		return func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			pods, err := env.cs.CoreV1().Pods(env.ns).List(ctx, kubeManagedPods)
			if err != nil || len(pods.Items) != 1 {
				t.Fatalf("the workspace pod: %v (%d pods)", err, len(pods.Items))
			}
			if _, stderr, err := kubetest.ExecIn(ctx, env.cfg, kubetest.SPDY, env.ns, pods.Items[0].Name, kubetest.WorkspaceContainer, nil, "sh", "-c", script); err != nil {
				t.Fatalf("%s: %v %s", script, err, stderr)
			}
		}
	}
	restored := resource.ComposeTestCheckFunc(
		env.expectSh("cd /workspace && stat -c '%a %n' src/tool.sh .secrets/token tasks tasks/README.md notes/a.txt",
			"755 src/tool.sh\n600 .secrets/token\n755 tasks\n755 tasks/README.md\n755 notes/a.txt"),
		env.expectSh("cd /workspace && cat src/tool.sh .secrets/token; echo; cat tasks/README.md notes/a.txt",
			"#!/bin/sh\necho tool\ns3cr3t-pod-token\nread me\nalpha"),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg, ConfigVariables: vars,
				Check: resource.ComposeTestCheckFunc(
					restored,
					resource.TestCheckResourceAttr("data.sandbox_exec.probe", "stdout", "read me\nalpha\nagent\n/workspace\n"),
					func(s *terraform.State) error { return stateLacks(s, "s3cr3t-pod-token") },
				),
			},
			{Config: cfg, ConfigVariables: vars, PlanOnly: true},
			{
				PreConfig: inPod("cd /workspace && echo tampered > src/tool.sh && chmod 0600 src/tool.sh && " +
					"rm notes/a.txt && chmod 0700 tasks"),
				Config: cfg, ConfigVariables: vars,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_file.from_source", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_manifest.m", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("sandbox_file.secret", plancheck.ResourceActionNoop),
				}},
				Check: restored,
			},
			{Config: cfg, ConfigVariables: vars, PlanOnly: true},
		},
	})
}

// kubeManagedPods selects the provider's pods.
var kubeManagedPods = metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=terraform-provider-sandbox"}

// stateLacks fails when secret, or its SHA-256, is in any attribute in state.
func stateLacks(s *terraform.State, secret string) error {
	for _, m := range s.Modules {
		for addr, r := range m.Resources {
			for k, v := range r.Primary.Attributes {
				if strings.Contains(v, secret) || v == sha(secret) {
					return fmt.Errorf("the secret (or its SHA-256) is in state at %s.%s", addr, k)
				}
			}
		}
	}
	return nil
}
