package provider

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker/dockertest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// buildEUID builds testdata/euid statically: it prints its uid and euid.
func buildEUID(t *testing.T) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "euid")
	cmd := exec.Command("go", "build", "-o", out, "./testdata/euid")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building testdata/euid: %v\n%s", err, b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// setuidEUID copies the euid program into the container as a setuid-root
// binary (/tmp/euid, mode 4755) and runs it as nobody; it returns what it
// printed.
func setuidEUID(containerID string, prog []byte) (string, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "euid", Mode: 0o4755, Size: int64(len(prog)), Typeflag: tar.TypeReg}); err != nil {
		return "", err
	}
	if _, err := tw.Write(prog); err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := dockertest.Client().CopyToContainer(ctx, containerID, client.CopyToContainerOptions{DestinationPath: "/tmp", Content: &buf}); err != nil {
		return "", err
	}
	if _, err := dockertest.Exec(ctx, containerID, "sh", "-c", "chown 0:0 /tmp/euid && chmod 4755 /tmp/euid"); err != nil {
		return "", err
	}
	res, err := dockertest.Daemon().Open(containerID, "/").Exec(ctx, sandbox.ExecRequest{Argv: []string{"/tmp/euid"}, User: "65534:65534"})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(res.Stdout)), nil
}

func (e *dockerEnv) expectSetuid(prog []byte, want string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		got, err := setuidEUID(e.container(s), prog)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("setuid-root program run as nobody printed %q, want %q", got, want)
		}
		return nil
	}
}

func expectCaps(add, drop []string) func(*container.HostConfig) error {
	return func(hc *container.HostConfig) error {
		if !slices.Equal(hc.CapAdd, add) || !slices.Equal(hc.CapDrop, drop) {
			return fmt.Errorf("docker inspect: CapAdd %v CapDrop %v; want %v %v", hc.CapAdd, hc.CapDrop, add, drop)
		}
		return nil
	}
}

const readOnlyEntries = `
resource "sandbox_file" "note" {
  workspace_id = sandbox_workspace.ws.id
  path         = "note.txt"
  content      = "written to a read-only image\n"
}

resource "sandbox_command" "writes" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "touch /etc/x 2>&1; touch /workspace/y /tmp/z && echo root and tmp writable"
  depends_on   = [sandbox_file.note]
}
`

// A default workspace has no-new-privileges, Docker's init and only the
// baseline capabilities (read from /proc/1/status inside it), so a
// setuid-root binary run by nobody stays nobody; turning the hardening off
// lets it become root, and user runs the container's process and commands
// as another user. read_only_rootfs refuses writes to /etc while the
// root and /tmp stay writable; cap_add, cap_drop and security_opt reach
// the container and are read back on import.
func TestAccDockerIsolation_hardening(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	prog := buildEUID(t)
	readOnly := `read_only_rootfs = true
    cap_add      = ["cap_net_raw"]
    cap_drop     = ["fowner"]
    security_opt = ["label=disable"]`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:      env.configDocker(`read_only_rootfs = true`, `users = [{ name = "agent" }]`, ""),
				ExpectError: regexp.MustCompile(`(?s)read_only_rootfs.*users and groups are provisioned`),
				PlanOnly:    true,
			},
			{
				Config:      env.configDocker(`cap_add = ["CAP_NOPE"]`, "", ""),
				ExpectError: regexp.MustCompile(`"CAP_NOPE" is not a Linux capability`),
				PlanOnly:    true,
			},
			{
				Config: env.config("", ""),
				Check: resource.ComposeTestCheckFunc(
					// CHOWN, DAC_OVERRIDE and FOWNER: bits 0, 1 and 3.
					env.expectSh(`grep -E '^(CapEff|NoNewPrivs)' /proc/1/status; cat /proc/1/comm`,
						"CapEff:\t000000000000000b\nNoNewPrivs:\t1\ndocker-init"),
					env.expectHost(expectCaps([]string{"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER"}, []string{"ALL"})),
					env.expectHost(func(hc *container.HostConfig) error {
						if !slices.Contains(hc.SecurityOpt, "no-new-privileges:true") || hc.Init == nil || !*hc.Init {
							return fmt.Errorf("docker inspect: SecurityOpt %v Init %v", hc.SecurityOpt, hc.Init)
						}
						return nil
					}),
					env.expectSetuid(prog, "uid=65534 euid=65534"),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "docker.no_new_privileges", "true"),
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "docker.init", "true"),
				),
			},
			{
				// The control: without no-new-privileges the same binary
				// becomes root, so the check above can fail.
				Config: env.configDocker("no_new_privileges = false\n    init = false\n    user = \"65534:65534\"", "", `
resource "sandbox_command" "who" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "id -u; cat /proc/1/status | grep '^Uid'"
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeTestCheckFunc(
					env.expectSh(`grep '^NoNewPrivs' /proc/1/status; cat /proc/1/comm`, "NoNewPrivs:\t0\ntail"),
					// user: the long-lived process and commands without a user.
					resource.TestCheckResourceAttr("sandbox_command.who", "stdout", "65534\nUid:\t65534\t65534\t65534\t65534\n"),
					env.expectSetuid(prog, "uid=65534 euid=0"),
				),
			},
			{
				Config: env.configDocker(readOnly, "", readOnlyEntries),
				Check: resource.ComposeTestCheckFunc(
					resource.TestMatchResourceAttr("sandbox_command.writes", "stdout",
						regexp.MustCompile(`^touch: /etc/x: Read-only file system\nroot and tmp writable\n$`)),
					env.expectSh("cat /workspace/note.txt", "written to a read-only image"),
					// CHOWN, DAC_OVERRIDE and NET_RAW: bits 0, 1 and 13.
					env.expectSh(`grep '^CapEff' /proc/1/status`, "CapEff:\t0000000000002003"),
					env.expectHost(expectCaps([]string{"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_NET_RAW"}, []string{"ALL"})),
					env.expectHost(func(hc *container.HostConfig) error {
						if !hc.ReadonlyRootfs || !slices.Contains(hc.SecurityOpt, "label=disable") {
							return fmt.Errorf("docker inspect: ReadonlyRootfs %v SecurityOpt %v", hc.ReadonlyRootfs, hc.SecurityOpt)
						}
						return nil
					}),
				),
			},
			{ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"keep_on_destroy", "docker.pull_policy", "docker.cap_add", "docker.cap_drop"}},
			{
				// cap_add and cap_drop are read back as NET_RAW and FOWNER;
				// the configuration's spelling is no change.
				Config: env.configDocker(readOnly, "", readOnlyEntries),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
		CheckDestroy: env.checkGone,
	})
}
