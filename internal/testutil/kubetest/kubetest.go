// Package kubetest gives tests the Kubernetes cluster named by $KUBECONFIG
// (`make test-kubernetes` brings one up with scripts/kube-up.sh): a client,
// throw-away namespaces, pods of the images that cluster has imported, and
// exec through the API server.
package kubetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// BusyboxImage is the static busybox image scripts/kube-up.sh imports into
// the cluster's containerd; pods use it with imagePullPolicy Never.
const BusyboxImage = "localhost/sandbox-test/busybox:1"

// Cluster returns a client for the cluster in $KUBECONFIG and its REST
// config, once its API server has answered. Without one the test skips
// saying why (fails under CI=true).
func Cluster(t testing.TB) (*kubernetes.Clientset, *rest.Config) {
	t.Helper()
	const what = "Kubernetes tests"
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		need.Unavailable(t, what, "KUBECONFIG is not set (make test-kubernetes brings up a cluster and sets it)")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		need.Unavailable(t, what, "KUBECONFIG "+path+": "+err.Error())
	}
	cfg.Timeout = 30 * time.Second
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client for %s: %v", path, err)
	}
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		need.Unavailable(t, what, "the API server of KUBECONFIG "+path+" does not answer: "+err.Error())
	}
	return cs, cfg
}

// Namespace creates a namespace named after prefix and deletes it when the
// test ends, waiting until it is gone.
func Namespace(t testing.TB, cs kubernetes.Interface, prefix string) string {
	t.Helper()
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		if err := DeleteNamespace(context.Background(), cs, ns.Name, 2*time.Minute); err != nil {
			t.Errorf("delete namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// DeleteNamespace deletes a namespace and waits until the API server no
// longer has it (its pods stopped and the namespace controller finished).
func DeleteNamespace(ctx context.Context, cs kubernetes.Interface, name string, timeout time.Duration) error {
	err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// BusyboxPod is a pod of one container "main" of BusyboxImage that runs
// command (by default `tail -f /dev/null`, which keeps it alive) and stops
// within a second when deleted.
func BusyboxPod(name string, labels map[string]string, command ...string) *corev1.Pod {
	if len(command) == 0 {
		command = []string{"tail", "-f", "/dev/null"}
	}
	grace := int64(1)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name:            "main",
				Image:           BusyboxImage,
				ImagePullPolicy: corev1.PullNever,
				Command:         command,
			}},
		},
	}
}

// RunPod creates pod in ns and waits until it runs.
func RunPod(t testing.TB, cs kubernetes.Interface, ns string, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	ctx := t.Context()
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s/%s: %v", ns, pod.Name, err)
	}
	var got *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = p
		switch p.Status.Phase {
		case corev1.PodRunning:
			return true, nil
		case corev1.PodFailed, corev1.PodSucceeded:
			return false, fmt.Errorf("pod ended: %s", p.Status.Phase)
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s is not running: %v; status: %+v", ns, pod.Name, err, got.Status)
	}
	return got
}

// Transport is how exec streams travel through the API server.
type Transport int

const (
	// WebSocket is the v5 channel protocol over a websocket (kubectl's default).
	WebSocket Transport = iota
	// SPDY is the older upgrade to SPDY/3.1.
	SPDY
)

// Exec runs cmd in the only container of a pod through the API server,
// with stdin when it is not nil, and returns what it wrote to stdout and
// stderr. A command that exits non-zero is an error.
func Exec(ctx context.Context, cfg *rest.Config, tr Transport, ns, pod string, stdin io.Reader, cmd ...string) (string, string, error) {
	return ExecIn(ctx, cfg, tr, ns, pod, "", stdin, cmd...)
}

// WorkspaceContainer is the name of the workspace container of a pod
// workspace, the one the agent's commands run in.
const WorkspaceContainer = "workspace"

// ExecIn is Exec in the named container of a pod ("" for its only one).
func ExecIn(ctx context.Context, cfg *rest.Config, tr Transport, ns, pod, container string, stdin io.Reader, cmd ...string) (string, string, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", "", err
	}
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{
			Container: container, Command: cmd, Stdin: stdin != nil, Stdout: true, Stderr: true,
		}, scheme.ParameterCodec)
	var ex remotecommand.Executor
	switch tr {
	case WebSocket:
		ex, err = remotecommand.NewWebSocketExecutor(cfg, "GET", req.URL().String())
	case SPDY:
		ex, err = remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	default:
		err = fmt.Errorf("unknown transport %d", tr)
	}
	if err != nil {
		return "", "", err
	}
	var stdout, stderr bytes.Buffer
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: &stdout, Stderr: &stderr})
	return stdout.String(), stderr.String(), err
}
