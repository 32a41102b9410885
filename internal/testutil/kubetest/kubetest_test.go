package kubetest_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// TestKubernetesClusterSmoke proves the test cluster does what a pod
// workspace needs: a pod of the imported image runs, exec through the API
// server returns stdout (websocket and SPDY), a tar streamed on exec stdin
// unpacks in the pod, a ClusterIP service reaches a server in one pod from
// another, and a namespace deletes with its pods.
func TestKubernetesClusterSmoke(t *testing.T) {
	cs, cfg := kubetest.Cluster(t)
	ctx := t.Context()
	ns := kubetest.Namespace(t, cs, "sandbox-smoke")
	labels := map[string]string{"app": "box"}
	box := kubetest.RunPod(t, cs, ns, kubetest.BusyboxPod("box", labels))
	if box.Status.PodIP == "" {
		t.Fatalf("running pod has no IP: %+v", box.Status)
	}

	for _, tr := range []struct {
		name string
		tr   kubetest.Transport
	}{{"websocket", kubetest.WebSocket}, {"spdy", kubetest.SPDY}} {
		out, stderr, err := kubetest.Exec(ctx, cfg, tr.tr, ns, "box", nil, "echo", "hello", tr.name)
		if err != nil || out != "hello "+tr.name+"\n" {
			t.Fatalf("exec echo over %s: stdout %q, stderr %q, err %v", tr.name, out, stderr, err)
		}
	}
	if _, _, err := kubetest.Exec(ctx, cfg, kubetest.WebSocket, ns, "box", nil, "false"); err == nil {
		t.Fatal("exec false: no error for a non-zero exit")
	}

	// A tar stream on exec stdin, unpacked by the pod's tar, read back.
	token := randomHex(t)
	page := "served " + token + "\n"
	archive := tarOf(t, map[string]string{"www/index.html": page, "www/big.bin": strings.Repeat(token, 1<<14)})
	if out, stderr, err := kubetest.Exec(ctx, cfg, kubetest.WebSocket, ns, "box", bytes.NewReader(archive), "tar", "-x", "-C", "/tmp"); err != nil {
		t.Fatalf("exec tar -x: stdout %q, stderr %q, err %v", out, stderr, err)
	}
	out, _, err := kubetest.Exec(ctx, cfg, kubetest.SPDY, ns, "box", nil, "cat", "/tmp/www/index.html")
	if err != nil || out != page {
		t.Fatalf("file unpacked from the tar stream: %q, err %v; want %q", out, err, page)
	}
	out, _, err = kubetest.Exec(ctx, cfg, kubetest.WebSocket, ns, "box", nil, "wc", "-c", "/tmp/www/big.bin")
	if want := fmt.Sprint(len(token)<<14) + " "; err != nil || !strings.HasPrefix(out, want) {
		t.Fatalf("size of the large file unpacked from the tar stream: %q, err %v; want %s", out, err, want)
	}

	// An httpd in the pod behind a ClusterIP service, fetched from another pod.
	if _, stderr, err := kubetest.Exec(ctx, cfg, kubetest.WebSocket, ns, "box", nil, "httpd", "-p", "8080", "-h", "/tmp/www"); err != nil {
		t.Fatalf("exec httpd: stderr %q, err %v", stderr, err)
	}
	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: labels,
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create service: %v", err)
	}
	if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		t.Fatalf("service has no cluster IP: %+v", svc.Spec)
	}
	kubetest.RunPod(t, cs, ns, kubetest.BusyboxPod("client", nil))
	url := "http://" + svc.Spec.ClusterIP + "/index.html"
	var last string
	// kube-proxy programs the service a moment after its endpoints appear.
	// Each try is bounded by timeout(1): Debian's busybox wget crashes with -T.
	err = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		out, stderr, err := kubetest.Exec(ctx, cfg, kubetest.WebSocket, ns, "client", nil, "timeout", "5", "wget", "-q", "-O", "-", url)
		last = fmt.Sprintf("stdout %q, stderr %q, err %v", out, stderr, err)
		return err == nil && out == page, nil
	})
	if err != nil {
		t.Fatalf("GET %s from pod client through the service: %s", url, last)
	}

	if err := kubetest.DeleteNamespace(ctx, cs, ns, 2*time.Minute); err != nil {
		t.Fatalf("delete namespace %s: %v", ns, err)
	}
	if _, err := cs.CoreV1().Pods(ns).Get(ctx, "box", metav1.GetOptions{}); err == nil {
		t.Fatal("pod box still exists after its namespace was deleted")
	}
}

func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func tarOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Name: "www/", Mode: 0o755, Typeflag: tar.TypeDir}); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
