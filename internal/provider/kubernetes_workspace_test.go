package provider

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// kubeEnv is a testEnv whose workspace is a pod of the test cluster, in a
// namespace the test creates.
type kubeEnv struct {
	*testEnv
	cs  *kubernetes.Clientset
	cfg *rest.Config
	ns  string
}

func newKubeEnv(t *testing.T) *kubeEnv {
	t.Helper()
	cs, cfg := kubetest.Cluster(t)
	return &kubeEnv{testEnv: newTestEnv(t), cs: cs, cfg: cfg, ns: kubetest.Namespace(t, cs, "sandbox-acc")}
}

// config is a provider block for the test cluster, a kubernetes workspace
// with extra settings in its block and wsExtra beside it, and body.
func (e *kubeEnv) config(blockExtra, wsExtra, body string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir    = %q
  extra_path_grants = [{ path = %q, read_only = true }]
  kubernetes {
    config_path = %q
  }
}

resource "sandbox_workspace" "ws" {
  kubernetes {
    namespace         = %q
    image             = %q
    image_pull_policy = "Never"
    %s
  }
  %s
}
%s`, e.base, e.src, os.Getenv("KUBECONFIG"), e.ns, kubetest.WorkspaceImage, blockExtra, wsExtra, body)
}

func (e *kubeEnv) pod(s *terraform.State) string {
	return s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["kubernetes.pod_name"]
}

// expectSh checks the output of a script run as root in the workspace pod.
func (e *kubeEnv) expectSh(script, want string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		got, err := e.shIn(e.pod(s), script)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%q in the pod printed\n%s\nwant\n%s", script, got, want)
		}
		return nil
	}
}

// checkGone: no pod or Service of the provider is left in the namespace.
func (e *kubeEnv) checkGone(*terraform.State) error {
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: "app.kubernetes.io/managed-by=terraform-provider-sandbox"}
	pods, err := e.cs.CoreV1().Pods(e.ns).List(ctx, sel)
	if err != nil {
		return err
	}
	svcs, err := e.cs.CoreV1().Services(e.ns).List(ctx, sel)
	if err != nil {
		return err
	}
	if len(pods.Items)+len(svcs.Items) > 0 {
		return fmt.Errorf("after destroy: %d pods and %d services left in %s", len(pods.Items), len(svcs.Items), e.ns)
	}
	return nil
}

const kubeEntries = `
resource "sandbox_dir" "src" {
  workspace_id = sandbox_workspace.ws.id
  path         = "src"
  permissions  = "0750"
  owner        = "agent"
  group        = "team"
}

resource "sandbox_file" "cfg" {
  workspace_id = sandbox_workspace.ws.id
  path         = "src/config.json"
  content      = "{\"answer\": 42}\n"
  permissions  = "0640"
  owner        = "agent"
  depends_on   = [sandbox_dir.src]
}

resource "sandbox_file" "bin" {
  workspace_id   = sandbox_workspace.ws.id
  path           = "data/blob.bin"
  content_base64 = "AAECAwQ="
}

resource "sandbox_local_dir" "tree" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
  owner        = "agent"
}

resource "sandbox_file" "page" {
  workspace_id = sandbox_workspace.ws.id
  path         = "www/index.html"
  content      = "served from the pod\n"
}

resource "sandbox_command" "serve" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "httpd -p 8080 -h /workspace/www && echo started"
  depends_on   = [sandbox_file.page]
}

resource "sandbox_command" "whoami" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "id -un; id -Gn; pwd; echo $GREETING; touch src/mine && stat -c %%U src/mine"
  user         = "agent"
  depends_on   = [sandbox_file.cfg]
}
`

// kubeSlowCommand outlives its timeout, with a child in a session of its own.
const kubeSlowCommand = `
resource "sandbox_command" "slow" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "setsid sleep 300 & sleep 300"
  timeout      = 2
}
`

// A pod workspace takes every entry kind and command through the API
// server: each is checked by exec in the pod; a timed-out command's whole
// process tree is killed; its users own what they were given; a second pod
// reaches a server in it through its Service; the next plan is empty; an
// import reads it back; a pod deleted out of band is re-created by the
// next apply; destroy removes pod and Service.
func TestAccKubernetesWorkspace_entriesCommandsService(t *testing.T) {
	env := newKubeEnv(t)
	env.writeSource("tree/a.txt", "alpha\n", 0o644)
	env.writeSource("tree/sub/b.sh", "#!/bin/sh\necho b\n", 0o755)
	f := newGitFixture(t)
	demoRepo(f)
	url := f.daemon() + "fixture/demo.git"
	ws := `environment   = { GREETING = "hello" }
  users         = [{ name = "agent" }]
  groups        = [{ name = "team", users = [{ name = "agent" }] }]
  exposed_ports = [8080]`
	resources := `resources = { requests = { cpu = "0.1", memory = "32Mi" }, limits = { memory = "256Mi" } }`
	body := fmt.Sprintf(kubeEntries, env.src+"/tree") + gitRepoBody(url, "v1", "")
	cfg := env.config(resources, ws, body)
	var firstPod string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					// An owner without a group gives its primary group; an entry
					// with neither takes the root's owner (agent).
					env.expectSh("cd /workspace && stat -c '%a %U %G %n' src src/config.json tree/a.txt tree/sub/b.sh data/blob.bin",
						"750 agent team src\n640 agent agent src/config.json\n644 agent agent tree/a.txt\n644 agent agent tree/sub/b.sh\n755 agent agent data/blob.bin"),
					env.expectSh("stat -c '%a %U' /workspace", "755 agent"),
					env.expectSh("cd /workspace && cat src/config.json && od -An -tx1 data/blob.bin | tr -d ' ' && cat repo/docs/guide.md",
						"{\"answer\": 42}\n0001020304\nguide v2"),
					resource.TestCheckResourceAttr("sandbox_command.whoami", "stdout", "agent\nagent team\n/workspace\nhello\nagent\n"),
					func(s *terraform.State) error {
						firstPod = env.pod(s)
						return env.reachFromSecondPod(s)
					},
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "endpoints.0.port", "8080"),
					resource.TestMatchResourceAttr("sandbox_workspace.ws", "endpoints.0.url_http",
						regexp.MustCompile(`^http://sandbox-[0-9a-f-]{36}\.`+env.ns+`\.svc\.cluster\.local:8080/$`)),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "kubernetes.image_pull_policy", "Never"),
				),
			},
			{Config: cfg, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"kubernetes.start_timeout", "kubernetes.resources"}},
			{Config: cfg + kubeSlowCommand, ExpectError: regexp.MustCompile(`did not finish within 2 seconds`)},
			{
				// Every process the timed-out command started was killed.
				Config: cfg,
				Check:  env.expectSh("ps -o stat,comm | grep -v '^Z' | grep -c 'sleep' || true", "0"),
			},
			{
				PreConfig: func() {
					if err := env.cs.CoreV1().Pods(env.ns).Delete(context.Background(), firstPod, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(
					func(s *terraform.State) error {
						if p := env.pod(s); p == firstPod {
							return fmt.Errorf("pod %s deleted out of band was not re-created", p)
						}
						return nil
					},
					env.expectSh("cat /workspace/src/config.json", "{\"answer\": 42}"),
				),
			},
		},
	})
}

// reachFromSecondPod fetches the workspace's page through its Service from
// another pod of the namespace; the test cluster runs no DNS server, so
// the Service named in the endpoint is reached at its cluster IP.
func (e *kubeEnv) reachFromSecondPod(s *terraform.State) error {
	svc, err := e.cs.CoreV1().Services(e.ns).Get(context.Background(), e.pod(s), metav1.GetOptions{})
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(s.RootModule().Resources["sandbox_workspace.ws"].Primary.Attributes["endpoints.0.port"])
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://%s:%d/index.html", svc.Spec.ClusterIP, port)
	get := kubetest.HTTPGetScript(svc.Spec.ClusterIP, port, "/index.html")
	kubetest.RunPod(e.t, e.cs, e.ns, kubetest.BusyboxPod("client", nil))
	var out, stderr string
	for i := 0; i < 20; i++ {
		out, stderr, err = kubetest.Exec(context.Background(), e.cfg, kubetest.WebSocket, e.ns, "client", nil, "sh", "-c", get)
		if err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil || out != "served from the pod\n" {
		return fmt.Errorf("wget %s from a second pod: %q %w %s", url, out, err, stderr)
	}
	return nil
}
