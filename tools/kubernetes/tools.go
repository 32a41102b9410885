//go:build tools

// Package kubernetes pins the Kubernetes control-plane and node binaries (and
// kubectl, the baseline of make bench's pod rows) that
// `make kube-bins` builds for the Kubernetes tests (scripts/kube-up.sh). It is
// a module of its own so that neither the provider's go.mod nor tools/go.mod
// carries the Kubernetes dependency tree.
package kubernetes

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
