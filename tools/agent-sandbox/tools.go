//go:build tools

// Package agentsandbox pins the agent-sandbox controller (kubernetes-sigs/
// agent-sandbox) that `make kube-bins` builds and scripts/kube-up.sh runs
// against the test cluster, with the CRDs of the same version. It is a
// module of its own: its Kubernetes libraries are not those of
// tools/kubernetes, and the provider's go.mod carries neither.
package agentsandbox

import _ "sigs.k8s.io/agent-sandbox/cmd/agent-sandbox-controller"
