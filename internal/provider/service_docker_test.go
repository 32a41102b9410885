package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// serviceHTTPDBody is busybox httpd as a service with an HTTP readiness
// probe, and a command that fetches its page from inside the workspace.
const serviceHTTPDBody = `
resource "sandbox_file" "index" {
  workspace_id = sandbox_workspace.ws.id
  path         = "www/index.html"
  content      = "hello from the service"
}
resource "sandbox_service" "web" {
  workspace_id = sandbox_file.index.workspace_id
  name         = "web"
  command      = ["httpd", "-f", "-v", "-p", "8080", "-h", "www"]
  readiness {
    http_get {
      port = 8080
      path = "/"
    }
    interval = "200ms"
    timeout  = "30s"
  }
}
resource "sandbox_command" "fetch" {
  workspace_id = sandbox_service.web.workspace_id
  command      = ["wget", "-q", "-O", "-", "http://127.0.0.1:8080/"]
  triggers     = { started = sandbox_service.web.started_at }
}
data "sandbox_file" "log" {
  workspace_id = sandbox_service.web.workspace_id
  path         = sandbox_service.web.log_path
  depends_on   = [sandbox_command.fetch]
}
`

// serviceProcsScript lists, from /proc, every live process (zombies
// aside) of the service: httpd or sleep, or a supervisor.
const serviceProcsScript = `for d in /proc/[0-9]*; do
  [ "${d#/proc/}" = "$$" ] && continue
  s=$(cat $d/stat 2>/dev/null) || continue; s=${s##*) }; set -- $s; [ "$1" = Z ] && continue
  c=$(tr '\0' ' ' < $d/cmdline 2>/dev/null)
  case "$c" in *httpd*|*sandbox-service*|*"sleep 3600"*) echo "${d#/proc/} $c";; esac
done`

// inWorkspace runs a shell script as root in the workspace of a state.
type inWorkspace func(s *terraform.State, script string) (string, error)

// serviceHTTPDSteps: the service answers when the apply returns and a
// command fetches its page; killed out of band, the refresh shows
// running = false and the apply restarts it; destroyed, no process of it
// is left in the workspace.
func serviceHTTPDSteps(config func(body string) string, run inWorkspace) []resource.TestStep {
	var pid string
	return []resource.TestStep{
		{
			Config: config(serviceHTTPDBody),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("sandbox_command.fetch", tfjsonpath.New("stdout"), knownvalue.StringExact("hello from the service")),
				statecheck.ExpectKnownValue("sandbox_service.web", tfjsonpath.New("running"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("sandbox_service.web", tfjsonpath.New("log_path"), knownvalue.StringExact(".services/web.log")),
				statecheck.ExpectKnownValue("data.sandbox_file.log", tfjsonpath.New("content"), knownvalue.StringRegexp(regexp.MustCompile(`(?s)--- starting .*response:200`))),
			},
			Check: func(s *terraform.State) error {
				pid = s.RootModule().Resources["sandbox_service.web"].Primary.Attributes["pid"]
				out, err := run(s, "cat /proc/"+pid+"/cmdline | tr '\\0' ' '")
				if err != nil || !strings.Contains(out, "sandbox-service") {
					return fmt.Errorf("pid %s is not the supervisor: %q %w", pid, out, err)
				}
				return nil
			},
		},
		{
			// Killed out of band: the refresh after this step sees it.
			Config: config(serviceHTTPDBody),
			Check: func(s *terraform.State) error {
				_, err := run(s, "kill -9 "+pid+"; killall -9 httpd; sleep 1")
				return err
			},
			ExpectNonEmptyPlan: true,
		},
		{
			Config: config(serviceHTTPDBody),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_service.web", plancheck.ResourceActionReplace),
					expectRunningBefore("sandbox_service.web"),
				},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("sandbox_command.fetch", tfjsonpath.New("stdout"), knownvalue.StringExact("hello from the service")),
				statecheck.ExpectKnownValue("sandbox_service.web", tfjsonpath.New("running"), knownvalue.Bool(true)),
			},
			Check: func(s *terraform.State) error {
				if got := s.RootModule().Resources["sandbox_service.web"].Primary.Attributes["pid"]; got == pid {
					return fmt.Errorf("pid %s unchanged after restart", got)
				}
				return nil
			},
		},
		{
			// Destroy the service only: no process of it is left.
			Config: config(""),
			Check: func(s *terraform.State) error {
				out, err := run(s, serviceProcsScript)
				if err != nil || out != "" {
					return fmt.Errorf("processes left after destroy: %q %w", out, err)
				}
				return nil
			},
		},
	}
}

func TestAccDockerService_httpd(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             env.checkGone,
		Steps: serviceHTTPDSteps(func(body string) string { return env.config("", body) },
			func(s *terraform.State, script string) (string, error) { return sh(env.container(s), script) }),
	})
}

// expectRunningBefore checks the planned change's prior `running`: the
// refresh before the plan saw the service dead.
type expectRunningBefore string

func (e expectRunningBefore) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != string(e) {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		if got, ok := before["running"].(bool); !ok || got {
			resp.Error = fmt.Errorf("%s: running before the change is %v, want false", e, before["running"])
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no planned change", e)
}

// A workspace stopped by its run_state runs nothing: the refresh keeps the
// service's state (no drift of the service while the workspace is down).
func TestAccDockerService_stoppedWorkspace(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	body := `
resource "sandbox_service" "s" {
  workspace_id = sandbox_workspace.ws.id
  name         = "s"
  command      = ["sleep", "3589"]
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: env.config(`run_state = "running"`, body), Check: env.expectSh(`for d in /proc/[0-9]*; do c=$(tr '\0' ' ' < $d/cmdline 2>/dev/null); case "$c" in "sleep 3589"*) echo up;; esac; done; true`, "up")},
			{Config: env.config(`run_state = "stopped"`, body)},
			{Config: env.config(`run_state = "stopped"`, body), PlanOnly: true},
		},
	})
}
