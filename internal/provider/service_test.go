package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Bad arguments of sandbox_service fail the plan, on the attribute, before
// anything is created.
func TestAccService_refusedAtPlan(t *testing.T) {
	env := newTestEnv(t)
	svc := func(args string) string {
		return env.config(`
resource "sandbox_service" "s" {
  workspace_id = sandbox_workspace.ws.id
  name         = "s"
` + args + `
}`)
	}
	cases := map[string]struct{ config, want string }{
		"command and shell":   {svc(`command = ["sleep", "9"]` + "\n" + `shell = "sleep 9"`), `Exactly one of these attributes must be configured: [command,shell]`},
		"neither":             {svc(``), `Exactly one of these attributes must be configured: [command,shell]`},
		"bad stop_timeout":    {svc(`shell = "sleep 9"` + "\n" + `stop_timeout = "10 sec"`), `"10 sec" is not a duration`},
		"negative stop":       {svc(`shell = "sleep 9"` + "\n" + `stop_timeout = "-1s"`), `"-1s" is out of range`},
		"bad name":            {svc(`shell = "sleep 9"`+"\n") + "", ``},
		"tcp port range":      {svc(`shell = "sleep 9"` + "\n" + `readiness { tcp_port = 70000 }`), `readiness.tcp_port value must be between 1 and 65535, got: 70000`},
		"http port range":     {svc(`shell = "sleep 9"` + "\n" + "readiness {\n http_get {\n port = 0\n }\n}"), `readiness.http_get.port value must be between 1 and 65535, got: 0`},
		"http port missing":   {svc(`shell = "sleep 9"` + "\n" + "readiness {\n http_get {\n path = \"/\"\n }\n}"), `readiness.http_get.port`},
		"http path":           {svc(`shell = "sleep 9"` + "\n" + "readiness {\n http_get {\n port = 80\n path = \"health\"\n }\n}"), `must start with /`},
		"two probes":          {svc(`shell = "sleep 9"` + "\n" + "readiness {\n tcp_port = 80\n exec = [\"true\"]\n}"), `readiness needs exactly one of exec, tcp_port and http_get; it has 2 (exec, tcp_port)`},
		"no probe":            {svc(`shell = "sleep 9"` + "\n" + `readiness { interval = "1s" }`), `readiness needs exactly one of exec, tcp_port and http_get; it has 0`},
		"bad interval":        {svc(`shell = "sleep 9"` + "\n" + "readiness {\n tcp_port = 80\n interval = \"fast\"\n}"), `"fast" is not a duration`},
		"restart":             {svc(`shell = "sleep 9"` + "\n" + `restart = "always"`), `restart value must be one of`},
		"log cap":             {svc(`shell = "sleep 9"` + "\n" + `log_max_bytes = 10`), `log_max_bytes value must be between 4096`},
		"name with slash":     {svc(`shell = "sleep 9"`) + "", ``},
		"working_dir escapes": {svc(`shell = "sleep 9"` + "\n" + `working_dir = "../x"`), `Invalid working directory`},
	}
	delete(cases, "bad name")
	delete(cases, "name with slash")
	cases["name with slash"] = struct{ config, want string }{strings.Replace(svc(`shell = "sleep 9"`), `name         = "s"`, `name = "a/b"`, 1), `must be 1 to 64 characters`}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps:                    []resource.TestStep{{Config: c.config, PlanOnly: true, ExpectError: errRe(c.want)}},
			})
		})
	}
	if entries, err := os.ReadDir(env.base); err == nil && len(entries) > 0 {
		t.Errorf("a refused plan created %d entries in %s", len(entries), env.base)
	}
}

// hostProcsMatching lists host processes whose command line holds s.
func hostProcsMatching(s string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			found = append(found, p)
		}
	}
	return found
}

// A service whose readiness never passes fails the apply within its
// timeout, with the last lines of its log in the error, and is stopped.
func TestAccService_neverReady(t *testing.T) {
	env := newTestEnv(t)
	start := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		Steps: []resource.TestStep{{
			Config: env.config(`
resource "sandbox_service" "s" {
  workspace_id = sandbox_workspace.ws.id
  name         = "deaf"
  shell        = "echo booting; echo no-listener-here >&2; exec sleep 3597"
  stop_timeout = "1s"
  readiness {
    tcp_port = 1
    interval = "200ms"
    timeout  = "3s"
  }
}`),
			ExpectError: regexp.MustCompile(`(?s)Service deaf did not become ready.*service not ready within 3s.*It was stopped: [1-9][0-9]* processes got\s+SIGTERM.*booting.*no-listener-here`),
		}},
	})
	if d := time.Since(start); d > 45*time.Second {
		t.Errorf("the failed apply took %s", d)
	}
	if left := hostProcsMatching("sleep 3597"); len(left) != 0 {
		t.Errorf("the service that never became ready is still running: %v", left)
	}
}
