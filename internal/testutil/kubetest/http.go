package kubetest

import "fmt"

// HTTPGetScript is a shell script for a pod of BusyboxImage that fetches
// http://<ip>:<port><path> with nc and prints the response body (the static
// busybox's wget crashes in these images). The exit status is nc's.
func HTTPGetScript(ip string, port int, path string) string {
	return fmt.Sprintf(`printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' | nc -w 5 %s %d > /tmp/http.out && `+
		`awk 'body { print } /^\r?$/ { body = 1 }' /tmp/http.out`, path, ip, ip, port)
}

// WorkspaceImage is the image of workspace pods in the tests: the Docker
// tests' image (scripts/docker-up.sh: busybox with every applet, the
// shadow account tools, httpd), which scripts/kube-up.sh imports into the
// cluster's containerd from the Docker daemon; pods use it with
// imagePullPolicy Never.
const WorkspaceImage = "docker.io/sandbox-test/busybox:latest"
