// Package kubernetes implements backend.Backend for a workspace inside a
// pod on an existing Kubernetes cluster, reached with client-go.
//
// The pod runs the container "workspace", whose process is `tail -f
// /dev/null` (as the Python SDK keeps a Docker container alive), with the
// workspace root on an emptyDir volume and the file helper's directory on
// another, mounted read-only; an init container, "sandbox-fs-helper",
// mounts that one read-write, receives the helper at creation and exits
// before the workspace container starts (see helper.go). The pod shares one process namespace, so the pod's pause process
// is process 1 and reaps what a killed command leaves behind, as Docker's
// init does for a container. It is labelled with the workspace UUID (LabelWorkspaceID), so a
// workspace is found again from its id alone: namespace and UUID.
//
// Every file operation and command is an exec through the API server (the
// WebSocket protocol, falling back to SPDY), as package incontainer
// describes: the file helper is copied in once per pod by a shell reading
// it from the exec's stdin, in the helper init container (in the workspace
// container for pods of earlier versions). Every exec names its container. The exec API takes only argv, so a command to
// run as a user, in a directory or with an environment goes through the
// helper's run operation (fshelper.OpRun), which takes that identity and
// replaces itself with the command.
//
// Exposed ports get a ClusterIP Service named as the pod; an endpoint is
// the Service's cluster DNS name and the port.
//
// Calls to the API server are bounded (a per-cluster limit on concurrent
// execs and client-go's rate limiter) and retried with backoff on 429 and
// 5xx answers.
package kubernetes
