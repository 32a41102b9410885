package provider

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// outOfBand is one workspace (local or Docker) that a test changes behind
// the provider's back with shell scripts run in its root.
type outOfBand struct {
	t   *testing.T
	env *testEnv
	// config wraps a body of entries with the provider and workspace.
	config func(body string) string
	// capture, in a first step's Check, records where the workspace is.
	capture resource.TestCheckFunc
	// shell runs a script in the workspace root and returns its output.
	shell        func(script string) (string, error)
	checkDestroy resource.TestCheckFunc
}

func localOutOfBand(t *testing.T) *outOfBand {
	env := newTestEnv(t)
	return &outOfBand{
		t: t, env: env, config: env.config,
		capture: func(*terraform.State) error { return nil },
		shell: func(script string) (string, error) {
			cmd := exec.Command("sh", "-c", script)
			cmd.Dir = env.wsRoot()
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%s: %w: %s", script, err, out)
			}
			return strings.TrimSpace(string(out)), err
		},
		checkDestroy: func(*terraform.State) error { return nil },
	}
}

func dockerOutOfBand(t *testing.T) *outOfBand {
	env := newDockerEnv(t)
	var container string
	return &outOfBand{
		t: t, env: env.testEnv,
		config:  func(body string) string { return env.config("", body) },
		capture: func(s *terraform.State) error { container = env.container(s); return nil },
		shell: func(script string) (string, error) {
			return sh(container, "cd /workspace && "+script)
		},
		checkDestroy: env.checkGone,
	}
}

// do runs a script that must succeed.
func (o *outOfBand) do(script string) func() {
	return func() {
		if _, err := o.shell(script); err != nil {
			o.t.Fatal(err)
		}
	}
}

// test runs the steps against this workspace, then checks its removal.
func (o *outOfBand) test(steps ...resource.TestStep) {
	resource.Test(o.t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps:                    steps,
		CheckDestroy:             o.checkDestroy,
	})
}

// expect checks a script's output.
func (o *outOfBand) expect(script, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := o.shell(script)
		if err == nil && got != want {
			err = fmt.Errorf("%s: got %q, want %q", script, got, want)
		}
		return err
	}
}

const typeChangeBody = `
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "conf/f.txt"
  content      = "v1\n"
}
resource "sandbox_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "d"
  permissions  = "0750"
}
resource "sandbox_local_dir" "tree" {
  workspace_id = sandbox_workspace.ws.id
  path         = "tree"
  source       = %q
}
`

// testTypeChanged replaces, out of band, what stands at declared paths by
// something of another type, as an agent inside the workspace can: a file
// by a directory holding files, a directory by a file, a copied tree by a
// file, and the parent directory of a file by a file. The plan replaces
// each entry (it used to fail on path until a person removed what was in
// the way), and the apply removes what the agent put there and restores
// the declared entries; the next plan is clean.
func testTypeChanged(t *testing.T, o *outOfBand) {
	o.env.writeSource("tree/a.txt", "a\n", 0o644)
	o.env.writeSource("tree/sub/b.txt", "b\n", 0o644)
	cfg := o.config(fmt.Sprintf(typeChangeBody+`
resource "sandbox_file" "g" {
  workspace_id = sandbox_workspace.ws.id
  path         = "p/g.txt"
  content      = "g\n"
}
`, filepath.Join(o.env.src, "tree")))
	restored := resource.ComposeTestCheckFunc(
		o.expect("cat conf/f.txt p/g.txt && stat -c %F conf/f.txt p", "v1\ng\nregular file\ndirectory"),
		o.expect("stat -c '%F %a' d", "directory 750"),
		o.expect("cat tree/a.txt tree/sub/b.txt && ls -A tree", "a\nb\na.txt\nsub"),
	)
	var replaces []plancheck.PlanCheck
	for _, addr := range []string{"sandbox_file.f", "sandbox_dir.d", "sandbox_local_dir.tree", "sandbox_file.g"} {
		replaces = append(replaces, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate))
	}
	o.test(
		resource.TestStep{Config: cfg, Check: resource.ComposeTestCheckFunc(o.capture, restored)},
		resource.TestStep{
			PreConfig: func() {
				o.do("rm conf/f.txt && mkdir -p conf/f.txt/sub && echo theirs > conf/f.txt/keep && echo more > conf/f.txt/sub/keep2")()
				o.do("rmdir d && echo theirs > d")()
				o.do("rm -r tree && echo theirs > tree")()
				o.do("rm -r p && echo theirs > p")()
			},
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: replaces},
			Check:            restored,
		},
		resource.TestStep{Config: cfg, PlanOnly: true},
	)
}

func TestAccEntries_typeChangedOutOfBand(t *testing.T) { testTypeChanged(t, localOutOfBand(t)) }

func TestAccDockerEntries_typeChangedOutOfBand(t *testing.T) { testTypeChanged(t, dockerOutOfBand(t)) }

// testManifestTypeChanged: a manifest's directory replaced by a file makes
// the plan fail on manifest_json naming it (it used to fail reading the
// entries on Docker), a manifest file replaced by a directory likewise;
// once removed, the apply restores both.
func testManifestTypeChanged(t *testing.T, o *outOfBand) {
	cfg := o.config(`
resource "sandbox_manifest" "m" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = jsonencode({ entries = {
    m   = { type = "dir", children = { "x.txt" = { type = "file", content = "x" } } }
    "n.txt" = { type = "file", content = "n" }
  } })
}
`)
	restored := o.expect("cat m/x.txt n.txt", "xn")
	o.test(
		resource.TestStep{Config: cfg, Check: resource.ComposeTestCheckFunc(o.capture, restored)},
		resource.TestStep{
			PreConfig: o.do("rm -r m && echo theirs > m"),
			Config:    cfg,
			ExpectError: regexp.MustCompile(`Manifest entry paths are taken by something else\s+with sandbox_manifest.m,[\s\S]*manifest_json[\s\S]*` +
				errRe("m is a regular file (7 bytes), where this entry makes a directory").String()),
		},
		resource.TestStep{
			PreConfig: func() {
				o.do(`test "$(cat m)" = theirs && rm m`)()
				o.do("rm n.txt && mkdir -p n.txt/theirs")()
			},
			Config:      cfg,
			ExpectError: errRe("n.txt is a directory, where this entry makes a regular file"),
		},
		resource.TestStep{
			PreConfig: o.do("test -d n.txt/theirs && rm -r n.txt"),
			Config:    cfg,
			Check:     restored,
		},
	)
}

func TestAccManifest_typeChangedOutOfBand(t *testing.T) {
	t.Parallel()
	testManifestTypeChanged(t, localOutOfBand(t))
}

func TestAccDockerManifest_typeChangedOutOfBand(t *testing.T) {
	t.Parallel()
	testManifestTypeChanged(t, dockerOutOfBand(t))
}
