package kubernetes_test

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

func newWorkspace(t *testing.T, mutate func(*kubernetes.Spec)) (*kubernetes.Cluster, *kubernetes.Backend, string) {
	t.Helper()
	cs, _ := kubetest.Cluster(t)
	if os.Getenv(incontainer.HelperEnv) == "" {
		need.Unavailable(t, "Kubernetes backend tests", incontainer.HelperEnv+" is not set (make test-kubernetes builds the helper and sets it)")
	}
	ns := kubetest.Namespace(t, cs, "sandbox-backend")
	c := kubernetes.NewCluster(spec.KubernetesConfig{ConfigPath: os.Getenv("KUBECONFIG")})
	s := kubernetes.Spec{WorkspaceID: uuid.NewString(), Kubernetes: spec.Kubernetes{Namespace: ns, Image: kubetest.WorkspaceImage, ImagePullPolicy: "Never", Root: "/workspace", StartTimeout: 2 * time.Minute}}
	if mutate != nil {
		mutate(&s)
	}
	b, err := c.Create(t.Context(), s)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = c.Remove(context.Background(), ns, b.PodName()) })
	return c, b, ns
}

func sh(t *testing.T, b backend.Backend, user, script string) string {
	t.Helper()
	res, err := b.Exec(t.Context(), sandbox.ExecRequest{Argv: []string{"sh", "-c", script}, User: user})
	if err != nil {
		t.Fatalf("exec %q: %v", script, err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exec %q: exit %d: %s", script, res.ExitCode, res.Stderr)
	}
	return string(res.Stdout)
}

// A pod workspace takes every file operation through the helper, runs
// commands as its users with the environment and root as working
// directory, and kills a timed-out command's whole process tree.
func TestKubernetesBackend_filesCommandsUsers(t *testing.T) {
	_, b, _ := newWorkspace(t, func(s *kubernetes.Spec) {
		s.Environment = map[string]string{"GREETING": "hello"}
		s.Users = []sandbox.User{{Name: "agent"}}
		s.Groups = []sandbox.Group{{Name: "team", Users: []sandbox.User{{Name: "agent"}}}}
	})
	ctx := t.Context()
	if err := b.MkdirAll(ctx, "src/pkg", 0o750); err != nil {
		t.Fatal(err)
	}
	content := strings.Repeat("data\n", 100000)
	wr, err := b.WriteFile(ctx, "src/pkg/data.txt", strings.NewReader(content), 0o640, "")
	if err != nil || wr.Size != int64(len(content)) {
		t.Fatalf("write: %+v %v", wr, err)
	}
	if err := b.Chown(ctx, "src", "agent", "team", true); err != nil {
		t.Fatal(err)
	}
	got := sh(t, b, "", "stat -c '%a %U %G %s' src/pkg src/pkg/data.txt; sha256sum src/pkg/data.txt | cut -c1-64")
	want := "640 agent team " + strconv.Itoa(len(content)) + "\n" + wr.SHA256 + "\n"
	if !strings.HasPrefix(got, "750 agent team ") || !strings.HasSuffix(got, want) {
		t.Fatalf("stat in the pod:\n%s\nwant 750 agent team for src/pkg, then\n%s", got, want)
	}
	files, err := b.WalkFiles(ctx, "src")
	if err != nil || len(files) != 1 || files[0].SHA256 != wr.SHA256 {
		t.Fatalf("walk: %+v %v", files, err)
	}
	if out := sh(t, b, "agent", "id -un; id -Gn; pwd; echo $GREETING; touch src/pkg/mine && stat -c %U src/pkg/mine"); out != "agent\nagent team\n/workspace\nhello\nagent\n" {
		t.Fatalf("as agent: %q", out)
	}
	res, err := b.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c", "exit 3"}})
	if err != nil || res.ExitCode != 3 {
		t.Fatalf("exit code: %+v %v", res, err)
	}
	// A command that outlives its timeout is killed with everything it started.
	start := time.Now()
	_, err = b.Exec(ctx, sandbox.ExecRequest{Argv: []string{"sh", "-c", "setsid sleep 300 & sleep 300"}, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("timeout: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the timeout took %s", d)
	}
	if out := sh(t, b, "", "ps -o comm | grep -c '^sleep' || true"); strings.TrimSpace(out) != "0" {
		t.Fatalf("sleep processes left after the timeout: %s", out)
	}
	// A snapshot of the root comes back out and restores into a new root.
	var tarball bytes.Buffer
	if err := b.Persist(ctx, nil, &tarball); err != nil || tarball.Len() == 0 {
		t.Fatalf("persist: %v (%d bytes)", err, tarball.Len())
	}
	if err := b.RemoveAll(ctx, "src"); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Hydrate(ctx, &tarball); err != nil || n != 2 {
		t.Fatalf("hydrate: %d files, %v", n, err)
	}
	if sum, _, err := b.HashFile(ctx, "src/pkg/data.txt"); err != nil || sum != wr.SHA256 {
		t.Fatalf("restored file: %s %v", sum, err)
	}
}

// An exposed port is a ClusterIP Service: another pod reaches a server in
// the workspace at the endpoint's DNS name. Removing the workspace deletes
// the pod and the Service; a pod deleted out of band is reported gone.
func TestKubernetesBackend_serviceAndLifecycle(t *testing.T) {
	c, b, ns := newWorkspace(t, func(s *kubernetes.Spec) { s.ExposedPorts = []int{8080} })
	ctx := t.Context()
	if _, err := b.WriteFile(ctx, "www/index.html", strings.NewReader("served from the pod\n"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	sh(t, b, "", "httpd -p 8080 -h /workspace/www")
	eps, err := b.Endpoints(ctx, []int{8080})
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints: %+v %v", eps, err)
	}
	if eps[0].Host != b.PodName()+"."+ns+".svc.cluster.local" || eps[0].Port != 8080 {
		t.Fatalf("endpoint %+v", eps[0])
	}
	cs, cfg := kubetest.Cluster(t)
	kubetest.RunPod(t, cs, ns, kubetest.BusyboxPod("client", nil))
	// The test cluster runs no DNS server: reach the Service by its
	// cluster IP.
	svc, err := cs.CoreV1().Services(ns).Get(ctx, b.PodName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + svc.Spec.ClusterIP + ":8080/index.html"
	get := kubetest.HTTPGetScript(svc.Spec.ClusterIP, 8080, "/index.html")
	var out string
	for i := 0; i < 20; i++ {
		out, _, err = kubetest.Exec(ctx, cfg, kubetest.WebSocket, ns, "client", nil, "sh", "-c", get)
		if err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil || out != "served from the pod\n" {
		t.Fatalf("wget %s from a second pod: %q %v", url, out, err)
	}
	if _, err := b.Endpoints(ctx, []int{9090}); err == nil {
		t.Fatal("an undeclared port has an endpoint")
	}

	// Deleted out of band: Exists says so, and an exec wraps ErrStopped.
	if err := cs.CoreV1().Pods(ns).Delete(ctx, b.PodName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		ok, err := b.Exists(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if i > 100 {
			t.Fatal("a deleted pod still exists")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := c.Remove(ctx, ns, b.PodName()); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Services(ns).Get(ctx, b.PodName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("service left after Remove: %v", err)
	}
}

// A pod whose image cannot be had fails the creation at once (before its
// start timeout), naming the kubelet's reason, and leaves nothing behind.
func TestKubernetesBackend_imageMissing(t *testing.T) {
	cs, _ := kubetest.Cluster(t)
	if os.Getenv(incontainer.HelperEnv) == "" {
		need.Unavailable(t, "Kubernetes backend tests", incontainer.HelperEnv+" is not set")
	}
	ns := kubetest.Namespace(t, cs, "sandbox-backend")
	c := kubernetes.NewCluster(spec.KubernetesConfig{ConfigPath: os.Getenv("KUBECONFIG")})
	id := uuid.NewString()
	start := time.Now()
	_, err := c.Create(t.Context(), kubernetes.Spec{WorkspaceID: id, Kubernetes: spec.Kubernetes{Namespace: ns, Image: "localhost/no-such-image:1", ImagePullPolicy: "Never", Root: "/workspace", StartTimeout: 2 * time.Minute}})
	if err == nil || !strings.Contains(err.Error(), "ErrImageNeverPull") {
		t.Fatalf("want an error naming ErrImageNeverPull, got %v", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("the creation failed only after %s, not at the kubelet's final reason", d)
	}
	if _, err := cs.CoreV1().Pods(ns).Get(t.Context(), kubernetes.PodName(id), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("pod left after the failed creation: %v", err)
	}
}
