package provider

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const serviceLocalConfig = requiredSandbox + `
provider "sandbox" {
  working_dir = abspath(path.root)
}
resource "sandbox_workspace" "local" {
  local {}
}
resource "sandbox_service" "sleeper" {
  workspace_id = sandbox_workspace.local.id
  name         = "sleeper"
  shell        = "sleep 3600 & sleep 3600; wait"
  stop_timeout = "2s"
  readiness {
    exec     = ["test", "-s", ".services/sleeper.log"]
    interval = "100ms"
  }
}
`

// stateValue renders any attribute of addr ("" when absent).
func stateValue(s tfState, addr, name string) string {
	for _, r := range s.Resources {
		if r.Type+"."+r.Name == addr && len(r.Instances) == 1 {
			if v, ok := r.Instances[0].Attributes[name]; ok && v != nil {
				return fmt.Sprint(v)
			}
		}
	}
	return ""
}

// serviceHostProcs lists the host processes whose environment carries the
// service's token (the supervisor and everything below it).
func serviceHostProcs(token string) []string {
	want := []byte("SANDBOX_SERVICE_TOKEN=" + token)
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		env, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				stat, _ := os.ReadFile(filepath.Join(p, "stat"))
				if s := string(stat); !strings.Contains(s[strings.LastIndex(s, ")")+1:], " Z ") {
					found = append(found, filepath.Base(p))
				}
				break
			}
		}
	}
	return found
}

// A service in a local workspace outlives the provider (the CLI has exited
// when it is checked), is found again from a fresh checkout holding only
// the state, and that checkout's destroy leaves no process of it.
func TestAccLocalService_freshCheckout(t *testing.T) {
	a := checkout(t, serviceLocalConfig)
	ca := newCLIRun(t, a)
	ca.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	st := readState(t, filepath.Join(a, "terraform.tfstate"))
	pid, token := stateValue(st, "sandbox_service.sleeper", "pid"), st.attr(t, "sandbox_service.sleeper", "id")
	if stateValue(st, "sandbox_service.sleeper", "running") != "true" {
		t.Fatalf("running is not true after apply")
	}
	cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
	if err != nil || !bytes.Contains(cmdline, []byte("sandbox-service")) {
		t.Fatalf("pid %s after the CLI exited: %q, %v", pid, cmdline, err)
	}
	procs := serviceHostProcs(token)
	if len(procs) < 3 { // supervisor, the script's shell, two sleeps (and the log watcher)
		t.Fatalf("service processes after apply: %v, want the supervisor and its children", procs)
	}
	root := st.attr(t, "sandbox_workspace.local", "root")
	if b, err := os.ReadFile(filepath.Join(root, ".services", "sleeper.log")); err != nil || !strings.Contains(string(b), "--- starting") {
		t.Fatalf("log: %q, %v", b, err)
	}

	b := checkout(t, serviceLocalConfig)
	copyFile(t, filepath.Join(a, "terraform.tfstate"), filepath.Join(b, "terraform.tfstate"))
	cb := newCLIRun(t, b)
	planNoChanges(t, cb, "second checkout")
	cb.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color")
	if left := serviceHostProcs(token); len(left) != 0 {
		t.Fatalf("processes left after destroy from the second checkout: %v", left)
	}
	if _, err := os.Lstat(root); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the workspace root (with the service's log) survived the destroy: %v", err)
	}
}
