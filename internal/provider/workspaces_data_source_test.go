package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
)

// listedWorkspaces reads the workspaces attribute of data source ds from
// state: one attribute map per listed workspace (keys as "id",
// "labels.slot").
func listedWorkspaces(s *terraform.State, ds string) ([]map[string]string, error) {
	r, ok := s.RootModule().Resources[ds]
	if !ok {
		return nil, fmt.Errorf("%s is not in state", ds)
	}
	attrs := r.Primary.Attributes
	var n int
	if _, err := fmt.Sscan(attrs["workspaces.#"], &n); err != nil {
		return nil, fmt.Errorf("%s has no workspaces.#: %w", ds, err)
	}
	out := make([]map[string]string, n)
	for i := range out {
		out[i] = map[string]string{}
		prefix := fmt.Sprintf("workspaces.%d.", i)
		for k, v := range attrs {
			if rest, ok := strings.CutPrefix(k, prefix); ok {
				out[i][rest] = v
			}
		}
	}
	return out, nil
}

// orphanEnv is a test's Docker workspaces that outlive their state: what
// the first configuration made, and the containers made by hand beside
// them.
type orphanEnv struct {
	*dockerEnv
	run     string            // the ci_run label of this test's workspaces
	dir     string            // the first configuration's working directory
	ids     map[string]string // slot -> workspace id from the first state
	cids    map[string]string // slot -> container id from the first state
	byHand  []string          // containers made by hand with copied labels
	fakeVol string            // a volume named like a helper volume, made by hand
}

func (e *orphanEnv) firstConfig() string {
	ws := func(name, run string) string {
		return fmt.Sprintf(`
resource "sandbox_workspace" %q {
  docker {
    image       = %q
    pull_policy = "never"
    labels      = { ci_run = %q, slot = %q }
  }
}
`, name, dockertest.Image, run, name)
	}
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}
%s%s%s
output "dir" {
  value = abspath(path.root)
}
`, e.base, ws("a", e.run), ws("b", e.run), ws("c", e.run+"-other"))
}

func (e *orphanEnv) secondConfig(extra string) string {
	return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

data "sandbox_workspaces" "run" {
  docker {}
  labels = { ci_run = %q }
}

data "sandbox_workspaces" "all" {
  docker {}
}
%s`, e.base, e.run, extra)
}

// remember records the first state's workspaces and where it lives.
func (e *orphanEnv) remember(s *terraform.State) error {
	e.dir = s.RootModule().Outputs["dir"].Value.(string)
	for _, slot := range []string{"a", "b", "c"} {
		r := s.RootModule().Resources["sandbox_workspace."+slot]
		e.ids[slot], e.cids[slot] = r.Primary.ID, r.Primary.Attributes["container_id"]
	}
	return nil
}

// cancelRun loses the first state, as a cancelled CI job does, stops b and
// pauses c, and starts two containers by hand on the test image: one with
// every label of a's container, one with b's labels under a new workspace
// UUID, named as a workspace container would be, with a read-only volume
// at the helper's path named like a helper volume.
func (e *orphanEnv) cancelRun() {
	t := e.t
	t.Helper()
	must(t, os.Remove(filepath.Join(e.dir, "terraform.tfstate")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cli := dockertest.Client()
	_, err := cli.ContainerStop(ctx, e.cids["b"], client.ContainerStopOptions{})
	must(t, err)
	_, err = cli.ContainerPause(ctx, e.cids["c"], client.ContainerPauseOptions{})
	must(t, err)
	labelsOf := func(cid string) map[string]string {
		res, err := cli.ContainerInspect(ctx, cid, client.ContainerInspectOptions{})
		must(t, err)
		out := map[string]string{}
		for k, v := range res.Container.Config.Labels {
			out[k] = v
		}
		return out
	}
	e.fakeVol = "sandbox-fs-helper-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	_, err = cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: e.fakeVol})
	must(t, err)
	fresh := uuid.NewString()
	bLabels := labelsOf(e.cids["b"])
	bLabels["sandbox.workspace_id"] = fresh
	for _, c := range []struct {
		name   string
		labels map[string]string
		mounts []mount.Mount
	}{
		{"orphans-copy-" + fresh[:8], labelsOf(e.cids["a"]), nil},
		{"sandbox-" + fresh, bLabels, []mount.Mount{{Type: mount.TypeVolume, Source: e.fakeVol, Target: "/.sandbox-fs-helper",
			ReadOnly: true, VolumeOptions: &mount.VolumeOptions{NoCopy: true}}}},
	} {
		created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: c.name,
			Config:     &container.Config{Image: dockertest.Image, Entrypoint: []string{"tail"}, Cmd: []string{"-f", "/dev/null"}, Labels: c.labels},
			HostConfig: &container.HostConfig{Mounts: c.mounts},
		})
		must(t, err)
		e.byHand = append(e.byHand, created.ID)
		_, err = cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{})
		must(t, err)
	}
}

// cleanup removes every container of this run (the workspaces no state
// holds any more and the hand-made ones) and the hand-made volume.
func (e *orphanEnv) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cli := dockertest.Client()
	for _, run := range []string{e.run, e.run + "-other"} {
		res, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", "ci_run="+run)})
		if err != nil {
			e.t.Errorf("listing this test's containers: %v", err)
			return
		}
		for _, c := range res.Items {
			if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
				e.t.Errorf("removing container %s: %v", c.ID, err)
			}
		}
	}
	if e.fakeVol != "" {
		_, _ = cli.VolumeRemove(ctx, e.fakeVol, client.VolumeRemoveOptions{Force: true})
	}
}

// checkListing: the run's listing holds exactly a and b, as the daemon
// reports their containers, and the unfiltered one holds c too; neither
// holds a container made by hand.
func (e *orphanEnv) checkListing(s *terraform.State) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli := dockertest.Client()
	run, err := listedWorkspaces(s, "data.sandbox_workspaces.run")
	if err != nil {
		return err
	}
	all, err := listedWorkspaces(s, "data.sandbox_workspaces.all")
	if err != nil {
		return err
	}
	if len(run) != 2 {
		return fmt.Errorf("the listing filtered by ci_run=%s holds %d workspaces, want a and b: %v", e.run, len(run), run)
	}
	want := map[string]string{"a": "running", "b": "stopped"}
	for _, l := range run {
		slot := l["labels.slot"]
		if slot != "a" && slot != "b" {
			return fmt.Errorf("the filtered listing holds %v, which is neither a nor b", l)
		}
		if l["id"] != e.ids[slot] || l["container_id"] != e.cids[slot] {
			return fmt.Errorf("workspace %s is listed as %s in container %s, want %s in %s", slot, l["id"], l["container_id"], e.ids[slot], e.cids[slot])
		}
		res, err := cli.ContainerInspect(ctx, l["container_id"], client.ContainerInspectOptions{})
		if err != nil {
			return fmt.Errorf("the daemon has no listed container %s: %w", l["container_id"], err)
		}
		c := res.Container
		if got := "docker:" + c.Config.Labels["sandbox.workspace_id"]; got != l["id"] || c.Name != "/sandbox-"+strings.TrimPrefix(got, "docker:") {
			return fmt.Errorf("container %s (%s) carries workspace %s, listed as %s", c.ID, c.Name, got, l["id"])
		}
		created, err := time.Parse(time.RFC3339, l["created_at"])
		if err != nil {
			return fmt.Errorf("created_at %q: %w", l["created_at"], err)
		}
		if !strings.HasSuffix(l["created_at"], "Z") {
			return fmt.Errorf("created_at %q is not in UTC", l["created_at"])
		}
		if dc, _ := time.Parse(time.RFC3339Nano, c.Created); !dc.Truncate(time.Second).Equal(created) {
			return fmt.Errorf("created_at %s, but the daemon says %s", l["created_at"], c.Created)
		}
		for k, v := range map[string]string{"kind": "docker", "root": "/workspace", "image": dockertest.Image, "run_state": want[slot],
			"labels.%": "2", "labels.ci_run": e.run} {
			if l[k] != v {
				return fmt.Errorf("workspace %s: %s = %q, want %q", slot, k, l[k], v)
			}
		}
		if _, ok := l["expires_at"]; ok && l["expires_at"] != "" {
			return fmt.Errorf("workspace %s: expires_at = %q, want null", slot, l["expires_at"])
		}
	}
	seen := map[string]map[string]string{}
	for _, l := range all {
		seen[l["container_id"]] = l
	}
	if l := seen[e.cids["c"]]; l == nil || l["id"] != e.ids["c"] || l["run_state"] != "paused" {
		return fmt.Errorf("the unfiltered listing lacks workspace c (%s, paused): %v", e.ids["c"], l)
	}
	for _, cid := range e.byHand {
		if l := seen[cid]; l != nil {
			return fmt.Errorf("container %s made by hand with copied labels is listed: %v", cid, l)
		}
	}
	return nil
}

// A first configuration makes three docker workspaces and its state is
// lost; containers are then made by hand with their labels. A second
// configuration lists the run's two by label with their ids, containers,
// run states and creation times, the third without the filter, never the
// copies; a listed id imports.
func TestAccDockerWorkspaces_orphans(t *testing.T) {
	e := &orphanEnv{dockerEnv: newDockerEnv(t), run: "orphans-" + uuid.NewString()[:8], ids: map[string]string{}, cids: map[string]string{}}
	t.Cleanup(e.cleanup)
	imported := `
resource "sandbox_workspace" "x" {
  docker {
    image       = "` + dockertest.Image + `"
    pull_policy = "never"
  }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: e.firstConfig(), Check: e.remember},
			{
				PreConfig: e.cancelRun,
				Config:    e.secondConfig(""),
				Check:     e.checkListing,
			},
			{
				Config:       e.secondConfig(imported),
				ResourceName: "sandbox_workspace.x", ImportState: true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					run, err := listedWorkspaces(s, "data.sandbox_workspaces.run")
					if err != nil {
						return "", err
					}
					for _, l := range run {
						if l["labels.slot"] == "a" {
							return l["id"], nil
						}
					}
					return "", fmt.Errorf("workspace a is not listed: %v", run)
				},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					for _, st := range states {
						if st.Attributes["container_id"] == "" {
							continue
						}
						if st.ID != e.ids["a"] || st.Attributes["container_id"] != e.cids["a"] || st.Attributes["docker.labels.slot"] != "a" {
							return fmt.Errorf("imported %s in container %s (labels %v), want %s in %s", st.ID, st.Attributes["container_id"],
								st.Attributes["docker.labels.slot"], e.ids["a"], e.cids["a"])
						}
						return nil
					}
					return fmt.Errorf("no workspace was imported: %v", states)
				},
			},
		},
	})
}

// Bad input to sandbox_workspaces is refused at plan time, on the
// attribute, before any daemon or cluster is contacted.
func TestAccWorkspaces_inputRefused(t *testing.T) {
	env := newTestEnv(t)
	cfg := func(body string) string {
		return fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
}

data "sandbox_workspaces" "x" {
%s
}
`, env.base, body)
	}
	var steps []resource.TestStep
	for _, c := range []struct{ body, want string }{
		{"", "Exactly one of these attributes must be configured: \\[docker,kubernetes\\]"},
		{"docker {}\nkubernetes {\nnamespace = \"ci\"\n}", "Exactly one of these attributes must be configured"},
		{"kubernetes {}", "a kubernetes listing needs the namespace"},
		{"kubernetes {\nnamespace = \"Not_A_Namespace\"\n}", `namespace "Not_A_Namespace" is not a namespace name`},
		{"kubernetes {\nnamespace = \"ci\"\n}\nlabels = { \"bad key!\" = \"x\" }", "bad key!"},
	} {
		steps = append(steps, resource.TestStep{Config: cfg(c.body), PlanOnly: true, ExpectError: regexp.MustCompile(c.want)})
	}
	// A label value known only at apply is checked then, not refused now.
	steps = append(steps, resource.TestStep{PlanOnly: true, ExpectNonEmptyPlan: true, Config: cfg(`kubernetes {
  namespace = "ci"
}
labels = { run = terraform_data.run.output }`) + `
resource "terraform_data" "run" {
  input = "r1"
}
`})
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: protoV6Factories, TerraformVersionChecks: requireTF111, Steps: steps})
}
