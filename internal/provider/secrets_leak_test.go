package provider

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// secretsLeakConfig sets every secret-bearing attribute that is not a
// mount's: content_wo, a sensitive content, environment_wo on commands (on
// the host and in a container) and on a docker workspace, git
// password_wo, the environment of an ephemeral sandbox_exec whose output
// is written with content_wo, and a command that fails echoing its secret
// (count = var.fail).
const secretsLeakConfig = `
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

provider "sandbox" {
  local_base_dir = %[1]q
}

variable "token" {
  type      = string
  sensitive = true
}

variable "secrets" {
  type      = map(string)
  sensitive = true
  ephemeral = true
}

variable "wo_version" {
  type = number
}

variable "fail" {
  type    = bool
  default = false
}

resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_workspace" "box" {
  docker {
    image       = %[2]q
    pull_policy = "never"
  }
  environment_wo         = { WS_SECRET = var.secrets.ws_env }
  environment_wo_version = var.wo_version
}

resource "sandbox_file" "wo" {
  workspace_id       = sandbox_workspace.ws.id
  path               = "wo.txt"
  content_wo         = var.secrets.file_wo
  content_wo_version = var.wo_version
}

resource "sandbox_file" "sensitive" {
  workspace_id = sandbox_workspace.ws.id
  path         = "token.txt"
  content      = var.token
}

resource "sandbox_command" "host" {
  workspace_id           = sandbox_workspace.ws.id
  shell                  = "echo %[3]s; sleep 2; echo \"cmd=$CMD_SECRET\"; printf %%s \"$CMD_SECRET\" > cmd.txt"
  environment_wo         = { CMD_SECRET = var.secrets.cmd_env }
  environment_wo_version = var.wo_version
}

resource "sandbox_command" "box" {
  workspace_id           = sandbox_workspace.box.id
  shell                  = "echo %[4]s; sleep 2; echo \"ws=$WS_SECRET cmd=$CMD_SECRET\""
  environment_wo         = { CMD_SECRET = var.secrets.box_cmd_env }
  environment_wo_version = var.wo_version
}

resource "sandbox_git_repo" "repo" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "repo"
  repo                   = "fixture/private"
  url                    = %[5]q
  ref                    = "main"
  username_wo            = "agent"
  password_wo            = var.secrets.git_password
  credentials_wo_version = var.wo_version
}

ephemeral "sandbox_exec" "fetch" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "printf %%s \"$FETCHED\""
  environment  = { FETCHED = var.secrets.ephemeral_env }
}

resource "sandbox_file" "fetched" {
  workspace_id       = sandbox_workspace.ws.id
  path               = "fetched.txt"
  content_wo         = ephemeral.sandbox_exec.fetch.stdout
  content_wo_version = var.wo_version
}

data "sandbox_manifest" "m" {
  entries = { (sandbox_file.sensitive.path) = sandbox_file.sensitive.manifest_entry }
}

output "review" {
  value = data.sandbox_manifest.m.review
}

resource "sandbox_command" "fails" {
  count          = var.fail ? 1 : 0
  workspace_id   = sandbox_workspace.ws.id
  shell          = "echo \"leaking $FAIL_SECRET\" >&2; exit 3"
  environment_wo = { FAIL_SECRET = var.secrets.fail_env }
}
`

// psRecorder snapshots the command line of every process until stopped.
type psRecorder struct {
	mu    sync.Mutex
	seen  map[string]bool
	stop  chan struct{}
	done  chan struct{}
	count int
}

func recordProcesses() *psRecorder {
	r := &psRecorder{seen: map[string]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for {
			procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			r.mu.Lock()
			for _, p := range procs {
				if c, err := os.ReadFile(p); err == nil && len(c) > 0 {
					r.seen[string(bytes.ReplaceAll(c, []byte{0}, []byte{' '}))] = true
				}
			}
			r.count++
			r.mu.Unlock()
			select {
			case <-r.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return r
}

// finish stops recording and returns every command line seen.
func (r *psRecorder) finish() string {
	close(r.stop)
	<-r.done
	lines := make([]string, 0, len(r.seen))
	for l := range r.seen {
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// TestAccSecrets_noLeaks drives every secret-bearing attribute through the
// real CLI with TF_LOG=trace: plan, apply (with process snapshots), a
// saved plan and its `show -json`, refresh, an import of the docker
// workspace, a failing command and destroy. No write-only secret may
// appear in the state, its backup, any log, plan JSON, CLI output or
// process command line; the sensitive content may appear only in the
// state attributes marked sensitive. Positive controls prove each secret
// reached its destination and each place looked at holds what it should.
func TestAccSecrets_noLeaks(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	dockertest.Require(t)
	f := newGitFixture(t)
	f.create("fixture/private")
	f.commit("fixture/private", map[string]string{"README.md": "private\n"})
	secrets := map[string]string{}
	for _, k := range []string{"ws_env", "file_wo", "cmd_env", "box_cmd_env", "git_password", "ephemeral_env", "fail_env"} {
		secrets[k] = leakSecret(t, strings.ReplaceAll(k, "_", "-"))
	}
	token := leakSecret(t, "sensitive-content")
	hostMarker, boxMarker := leakSecret(t, "ps-host"), leakSecret(t, "ps-box")
	url := f.httpServer("agent", secrets["git_password"]) + "fixture/private.git"

	dir := t.TempDir()
	base := filepath.Join(dir, "base")
	cfg := fmt.Sprintf(secretsLeakConfig, base, dockertest.Image, hostMarker, boxMarker, url)
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644))
	cli := newCLIRun(t, dir)
	var vars []string
	for k, v := range secrets {
		vars = append(vars, fmt.Sprintf("%q = %q", k, v))
	}
	cli.env = append(cli.env, "TF_VAR_secrets={"+strings.Join(vars, ", ")+"}", "TF_VAR_token="+token)
	v1 := []string{"-input=false", "-var", "wo_version=1"}
	applied := true
	t.Cleanup(func() {
		if applied {
			cli.mustSucceed = false
			cli.run("cleanup.log", append([]string{"destroy", "-auto-approve"}, v1...)...)
		}
	})

	// The plan of a new sandbox_file whose content is a sensitive variable.
	firstPlan := cli.run("plan-create.log", append([]string{"plan"}, v1...)...)
	if !strings.Contains(firstPlan, `sandbox_file.sensitive`) || !strings.Contains(firstPlan, "(sensitive value)") {
		t.Fatalf("the first plan does not show sandbox_file.sensitive with a sensitive value:\n%s", firstPlan)
	}
	ps := recordProcesses()
	cli.run("apply.log", append([]string{"apply", "-auto-approve"}, v1...)...)
	procs := ps.finish()
	st, stateText := readStateJSON(t, dir)

	// Positive controls: every secret reached its destination.
	root := st.attr(t, "sandbox_workspace.ws", "root")
	for file, want := range map[string]string{"wo.txt": secrets["file_wo"], "token.txt": token, "cmd.txt": secrets["cmd_env"],
		"fetched.txt": secrets["ephemeral_env"], "repo/README.md": "private\n"} {
		if b, err := os.ReadFile(filepath.Join(root, file)); err != nil || string(b) != want {
			t.Errorf("positive control: %s holds %q (%v)", file, b, err)
		}
	}
	if got, err := sh(st.attr(t, "sandbox_workspace.box", "container_id"), `echo "$WS_SECRET"`); err != nil || got != secrets["ws_env"] {
		t.Errorf("positive control: the container's WS_SECRET is %q (%v)", got, err)
	}
	if got := st.attr(t, "sandbox_command.host", "stdout"); got != hostMarker+"\ncmd=REDACTED\n" {
		t.Errorf("positive control: host command stdout %q", got)
	}
	if got := st.attr(t, "sandbox_command.box", "stdout"); got != boxMarker+"\nws=REDACTED cmd=REDACTED\n" {
		t.Errorf("positive control: container command stdout %q", got)
	}
	if !strings.Contains(procs, hostMarker) || !strings.Contains(procs, boxMarker) {
		t.Errorf("positive control: %d process snapshots never saw a command running", ps.count)
	}
	if review := st.output(t, "review"); !strings.Contains(review, "(sensitive value, sha256 "+sha(token)+")") {
		t.Errorf("positive control: review does not show the content's digest:\n%s", review)
	}

	// A rotation as a saved plan, its JSON and human forms; refresh.
	v2 := []string{"-input=false", "-var", "wo_version=2"}
	cli.run("plan.log", append([]string{"plan", "-out=rotate.tfplan"}, v2...)...)
	planJSON := cli.run("show.log", "show", "-json", "rotate.tfplan")
	if !strings.Contains(planJSON, `"sandbox_command"`) || !strings.Contains(planJSON, `"delete"`) {
		t.Fatalf("the rotation plan replaces nothing:\n%.2000s", planJSON)
	}
	cli.run("show-plan.log", "show", "rotate.tfplan")
	cli.run("refresh.log", append([]string{"apply", "-refresh-only", "-auto-approve"}, v1...)...)
	// A command that fails echoing its secret: the error says so, redacted.
	cli.mustSucceed = false
	before := cli.out.Len()
	cli.run("fail.log", append([]string{"apply", "-auto-approve", "-var", "fail=true"}, v1...)...)
	cli.mustSucceed = true
	if failure := cli.out.String()[before:]; !strings.Contains(failure, "leaking REDACTED") {
		t.Errorf("positive control: the failing command's error does not show its redacted output:\n%s", failure)
	}

	// An import of the docker workspace reads nothing secret back.
	boxID := st.attr(t, "sandbox_workspace.box", "id")
	cli.run("state-rm.log", "state", "rm", "sandbox_workspace.box")
	cli.run("import.log", append([]string{"import"}, append(v1, "sandbox_workspace.box", boxID)...)...)
	imported, importedText := readStateJSON(t, dir)
	if imported.attr(t, "sandbox_workspace.box", "container_id") == "" {
		t.Fatal("the import did not bring the docker workspace back")
	}
	cli.run("destroy.log", append([]string{"destroy", "-auto-approve"}, v1...)...)
	applied = false

	// Every command's output but show -json's, which is the plan JSON.
	human := strings.Replace(cli.out.String(), planJSON, "", 1)
	places := map[string]string{"plan JSON": planJSON, "process arguments": procs, "CLI output": human,
		"state after apply": stateText, "state after import": importedText}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range append(logs, filepath.Join(dir, "terraform.tfstate"), filepath.Join(dir, "terraform.tfstate.backup")) {
		b, err := os.ReadFile(f)
		must(t, err)
		places[filepath.Base(f)] = string(b)
	}
	if !strings.Contains(places["apply.log"], "sandbox_command") || !strings.Contains(places["apply.log"], "TRACE") {
		t.Fatal("apply.log holds no trace of the provider: the log check would prove nothing")
	}
	noLeaks(t, secrets, places)
	// The sensitive content is Terraform's to store: only in the state (and
	// the plan JSON, which holds variable values) and only where marked.
	for place, text := range places {
		if i := strings.Index(text, token); i >= 0 && !strings.HasPrefix(place, "state after") && place != "plan JSON" &&
			place != "terraform.tfstate.backup" {
			t.Errorf("the sensitive content leaked into %s: ...%s...", place, text[max(0, i-300):i])
		}
	}
	sensitive := sensitiveAttributes(t, cli.run("schema.log", "providers", "schema", "-json"))
	st.onlySensitive(t, token, sensitive)
	imported.onlySensitive(t, token, sensitive)
}
