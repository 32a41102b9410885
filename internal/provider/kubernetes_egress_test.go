package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// egressSidecar is the container of a pod workspace that programs its
// egress policy.
const egressSidecar = "sandbox-egress"

// TestAccKubernetesEgress_denyByDefault: a pod workspace with egress
// default deny and one allow rule reaches peer pod A's port 8080 and
// nothing else (not A:8081, not B); the table is in the pod's network
// namespace (listed from the pod's egress container, which shares it),
// root in the workspace container cannot remove it, and when it is
// removed out of band the next plan shows an update that puts it back. An
// import reads the policy back; removing egress and adding it again are
// updates in place. The host's firewall is untouched.
func TestAccKubernetesEgress_denyByDefault(t *testing.T) {
	keepHostRules(t)
	env := newKubeEnv(t)
	ipA := env.egressPeer("peer-a")
	ipB := env.egressPeer("peer-b")
	policy := fmt.Sprintf(`
  egress = {
    default = "deny"
    allow   = [{ cidr = "%s/32", ports = [8080] }]
  }`, ipA)
	cfg := env.config("", policy, "")
	enforced := func(s *terraform.State) error {
		o, err := env.listEgress(env.pod(s), egressSidecar)
		if err != nil {
			return err
		}
		want := []string{"base loopback", "base replies", fmt.Sprintf("allow 0 any tcp 8080 %s/32", ipA), fmt.Sprintf("allow 0 any udp 8080 %s/32", ipA)}
		if !o.Present || o.Default != "deny" || !slices.Equal(o.Comments, want) {
			return fmt.Errorf("the pod's namespace holds %+v; want default deny and rules %q", o, want)
		}
		return env.expectReach(env.pod(s), map[string]string{ipA + ":8080": "peer-a-8080", ipA + ":8081": "", ipB + ":8080": "", ipB + ":8081": ""})
	}
	rootCannotRemove := func(s *terraform.State) error {
		out, _ := env.inPod(env.pod(s), kubetest.WorkspaceContainer, "h=$(ls "+path.Join(fshelper.HelperDir, "*", fshelper.HelperName)+" | head -1); $h egress remove 2>&1; echo rc=$?")
		if !strings.Contains(out, "operation not permitted") || strings.HasSuffix(strings.TrimSpace(out), "rc=0") {
			return fmt.Errorf("root in the workspace container removing the egress table: %q, want operation not permitted", out)
		}
		if o, err := env.listEgress(env.pod(s), egressSidecar); err != nil || !o.Present {
			return fmt.Errorf("after root in the workspace tried to remove it, the table is %+v (%w)", o, err)
		}
		return nil
	}
	// The pod shares one process namespace: root in the workspace sees the
	// egress container's process, but cannot reach its root or namespaces
	// through /proc (that needs CAP_SYS_PTRACE), and killing it only
	// restarts it, while the rules, the kernel's, stay.
	cannotBorrow := func(s *terraform.State) error {
		pod := env.pod(s)
		out, err := env.inPod(pod, kubetest.WorkspaceContainer, `for d in /proc/[0-9]*; do `+
			`grep -q '^CapEff:[[:space:]]*0000000000001000$' $d/status 2>/dev/null || continue; p=${d#/proc/}; echo pid=$p; `+
			`ls $d/root/ >/dev/null 2>&1 && echo root-readable; readlink $d/ns/net >/dev/null 2>&1 && echo ns-readable; `+
			`kill -9 $p && echo killed; done`)
		if err != nil {
			return err
		}
		if !strings.Contains(out, "pid=") || !strings.Contains(out, "killed") || strings.Contains(out, "readable") {
			return fmt.Errorf("root in the workspace and the egress container's process: %q, want it found, unreadable and killed", out)
		}
		var last error
		for i := 0; i < 60; i++ {
			o, err := env.listEgress(pod, egressSidecar)
			if err == nil && o.Present {
				return env.expectReach(pod, map[string]string{ipA + ":8081": "", ipB + ":8080": ""})
			}
			last = fmt.Errorf("%+v %w", o, err)
			time.Sleep(time.Second)
		}
		return fmt.Errorf("the egress container did not come back with the rules in place: %w", last)
	}
	var podName string
	samePod := func(s *terraform.State) error {
		if podName == "" {
			podName = env.pod(s)
		} else if env.pod(s) != podName {
			return fmt.Errorf("the pod was replaced: %s, was %s", env.pod(s), podName)
		}
		return nil
	}
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionUpdate),
	}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeTestCheckFunc(samePod, enforced, rootCannotRemove, cannotBorrow,
					resource.TestCheckResourceAttr("sandbox_workspace.ws", "egress.resolved.%", "0")),
			},
			{
				// Removed out of band, by someone with CAP_NET_ADMIN in the
				// namespace: the plan shows it, the apply restores it.
				PreConfig: func() {
					pod := env.onlyPod()
					if _, err := env.inPod(pod, egressSidecar, "h=$(ls "+path.Join(fshelper.HelperDir, "*", fshelper.HelperName)+" | head -1); $h egress remove"); err != nil {
						t.Fatal(err)
					}
					if o, err := env.listEgress(pod, egressSidecar); err != nil || o.Present {
						t.Fatalf("the out-of-band removal left %+v (%v)", o, err)
					}
					// Without the rules B is reachable: what the checks deny is the policy's doing.
					if got := env.reach(pod, ipB, 8081); got != "peer-b-8081" {
						t.Fatalf("without egress rules the workspace fetching B:8081 got %q", got)
					}
				},
				Config: cfg, ConfigPlanChecks: update,
				Check: resource.ComposeTestCheckFunc(samePod, enforced),
			},
			{
				ResourceName: "sandbox_workspace.ws", ImportState: true, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"kubernetes.start_timeout", "kubernetes.resources"},
			},
			{
				// Without egress the table goes and B is reachable; the pod stays.
				Config: env.config("", "", ""), ConfigPlanChecks: update,
				Check: func(s *terraform.State) error {
					if err := samePod(s); err != nil {
						return err
					}
					if o, err := env.listEgress(env.pod(s), egressSidecar); err != nil || o.Present {
						return fmt.Errorf("after egress was removed the namespace holds %+v (%w)", o, err)
					}
					return env.expectReach(env.pod(s), map[string]string{ipB + ":8081": "peer-b-8081"})
				},
			},
			{
				// The pod keeps its egress container: adding the policy again is in place.
				Config: cfg, ConfigPlanChecks: update,
				Check: resource.ComposeTestCheckFunc(samePod, enforced),
			},
		},
	})
}

// TestAccKubernetesEgress_addedReplaces: a pod workspace created without
// egress has no container that may program it, so adding egress plans a
// replacement, whose pod enforces it.
func TestAccKubernetesEgress_addedReplaces(t *testing.T) {
	env := newKubeEnv(t)
	ipA := env.egressPeer("peer-a")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps: []resource.TestStep{
			{Config: env.config("", "", "")},
			{
				Config: env.config("", fmt.Sprintf(`egress = { default = "deny", allow = [{ cidr = "%s/32", ports = [8080] }] }`, ipA), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("sandbox_workspace.ws", plancheck.ResourceActionReplace),
				}},
				Check: func(s *terraform.State) error {
					return env.expectReach(env.pod(s), map[string]string{ipA + ":8080": "peer-a-8080", ipA + ":8081": ""})
				},
			},
		},
	})
}

// egressPeer runs a pod in the test's namespace answering "<name>-8080"
// on port 8080 and "<name>-8081" on port 8081, and returns its address.
func (e *kubeEnv) egressPeer(name string) string {
	script := fmt.Sprintf("(while true; do echo %[1]s-8080 | nc -l -p 8080; done) & while true; do echo %[1]s-8081 | nc -l -p 8081; done", name)
	p := kubetest.RunPod(e.t, e.cs, e.ns, kubetest.BusyboxPod(name, nil, "sh", "-c", script))
	if p.Status.PodIP == "" {
		e.t.Fatalf("peer pod %s has no address", name)
	}
	return p.Status.PodIP
}

// inPod runs a shell script as root in a container of a pod of the test's
// namespace, behind the provider's back.
func (e *kubeEnv) inPod(pod, container, script string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, stderr, err := kubetest.ExecIn(ctx, e.cfg, kubetest.WebSocket, e.ns, pod, container, nil, "sh", "-c", script)
	if err != nil {
		return out, fmt.Errorf("%q in %s/%s: %w: %s", script, pod, container, err, stderr)
	}
	return out, nil
}

// egressListing is the file helper's answer to `egress list`.
type egressListing struct {
	Present  bool     `json:"present"`
	Default  string   `json:"default"`
	Comments []string `json:"comments"`
}

// listEgress lists the egress table of the pod's network namespace by
// running the helper in container (one that shares the namespace).
func (e *kubeEnv) listEgress(pod, container string) (egressListing, error) {
	out, err := e.inPod(pod, container, "h=$(ls "+path.Join(fshelper.HelperDir, "*", fshelper.HelperName)+" | head -1); $h egress list")
	if err != nil {
		return egressListing{}, err
	}
	var l egressListing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		return egressListing{}, fmt.Errorf("egress list: %w: %q", err, out)
	}
	return l, nil
}

// reach connects from the workspace container to ip:port and returns what
// the peer answered, or "" when the connection failed within 3 seconds.
func (e *kubeEnv) reach(pod, ip string, port int) string {
	out, _ := e.inPod(pod, kubetest.WorkspaceContainer, fmt.Sprintf("nc -w 3 %s %d </dev/null 2>/dev/null", ip, port))
	return strings.TrimSpace(out)
}

// expectReach checks what the workspace reaches: want maps "ip:port" to
// the expected answer ("" for unreachable).
func (e *kubeEnv) expectReach(pod string, want map[string]string) error {
	for dst, w := range want {
		ip, port, _ := strings.Cut(dst, ":")
		var p int
		_, _ = fmt.Sscan(port, &p)
		var got string
		for i := 0; i < 5; i++ { // a peer's nc may be between two connections
			if got = e.reach(pod, ip, p); got == w {
				break
			}
			if w == "" {
				return fmt.Errorf("the workspace reached %s (%q) though egress denies it", dst, got)
			}
			time.Sleep(300 * time.Millisecond)
		}
		if got != w {
			return fmt.Errorf("the workspace fetching %s: got %q, want %q", dst, got, w)
		}
	}
	return nil
}

// onlyPod is the name of the one workspace pod of the test's namespace.
func (e *kubeEnv) onlyPod() string {
	e.t.Helper()
	pods, err := e.cs.CoreV1().Pods(e.ns).List(context.Background(), kubeManagedPods)
	if err != nil || len(pods.Items) != 1 {
		e.t.Fatalf("the workspace pod: %v (%d pods)", err, len(pods.Items))
	}
	return pods.Items[0].Name
}
