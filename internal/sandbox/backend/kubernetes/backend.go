package kubernetes

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// Backend is a workspace inside one pod. Every file operation and command
// is one exec through the API server (see package incontainer).
type Backend struct {
	*incontainer.Workspace
	c        *Cluster
	ns, name string
}

var (
	_ backend.Backend     = (*Backend)(nil)
	_ backend.BatchWriter = (*Backend)(nil)
)

// Open returns the Backend of an existing pod; nothing is contacted.
func (c *Cluster) Open(ns, name, root string) *Backend {
	r := &podRunner{c: c, ns: ns, name: name, container: containerName}
	b := &Backend{c: c, ns: ns, name: name}
	b.Workspace = incontainer.New(r, ns+"/"+name, root, &c.helpers, incontainer.Hooks{Protected: b.protectedHelper, Ran: c.reads.Changed})
	r.ws = b.Workspace
	return b
}

// Kind returns "kubernetes".
func (b *Backend) Kind() string { return Kind }

// Namespace and PodName name the pod.
func (b *Backend) Namespace() string { return b.ns }

// PodName returns the pod's name.
func (b *Backend) PodName() string { return b.name }

// Exists reports whether the pod is still there and can serve the
// workspace; a deleted, evicted or ended pod gives (false, nil), so the
// workspace is planned for re-creation.
func (b *Backend) Exists(ctx context.Context) (bool, error) {
	p, ok, err := b.c.Lookup(ctx, b.ns, b.name)
	if err != nil || !ok {
		return false, err
	}
	return !p.Gone, nil
}

// Endpoints returns, for each exposed port, the in-cluster address of the
// workspace's Service: its cluster DNS name and the port. A workspace
// without exposed ports has no Service and no endpoints.
func (b *Backend) Endpoints(ctx context.Context, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	if len(ports) == 0 {
		return nil, nil
	}
	cs, _, err := b.c.client()
	if err != nil {
		return nil, err
	}
	svc, err := cs.CoreV1().Services(b.ns).Get(ctx, b.name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading service %s/%s: %w", b.ns, b.name, err)
	}
	have := map[int]bool{}
	for _, p := range svc.Spec.Ports {
		have[int(p.Port)] = true
	}
	var out []sandbox.ExposedPortEndpoint
	for _, p := range ports {
		if !have[p] {
			return nil, sandbox.NewExposedPortNotConfiguredError(p, ports)
		}
		out = append(out, sandbox.ExposedPortEndpoint{Host: b.name + "." + b.ns + ".svc.cluster.local", Port: p})
	}
	return out, nil
}
