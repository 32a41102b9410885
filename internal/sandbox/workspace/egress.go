package workspace

import (
	"context"
	"fmt"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/egress"
)

// egressBackend is a workspace kind that enforces an egress policy in its
// own network namespace.
type egressBackend interface {
	ApplyEgress(ctx context.Context, prog egress.Program) (egress.Observed, error)
	ReadEgress(ctx context.Context) (egress.Observed, error)
	RemoveEgress(ctx context.Context) error
}

var (
	_ egressBackend = (*docker.Backend)(nil)
	_ egressBackend = (*kubernetes.Backend)(nil)
)

// CanEnforceEgress reports whether a policy can be programmed into the
// workspace now without re-creating it: a Docker container always can (a
// short-lived container joins its namespace); a pod only when it was
// created with its egress container. It only reads.
func (e *Engine) CanEnforceEgress(ctx context.Context, w *Workspace) (bool, error) {
	b, ok := w.Backend.(egressBackend)
	if !ok {
		return false, nil
	}
	c, ok := b.(interface {
		CanEnforceEgress(ctx context.Context) (bool, error)
	})
	if !ok {
		return true, nil
	}
	can, err := c.CanEnforceEgress(ctx)
	if err != nil {
		return false, fmt.Errorf("workspace %s: %w", w.ID, err)
	}
	return can, nil
}

// ApplyEgress compiles p with the addresses its hosts resolved to and
// programs it into the workspace's network namespace, then checks that
// what is there is the policy.
func (e *Engine) ApplyEgress(ctx context.Context, w *Workspace, p egress.Policy, resolved map[string][]string) error {
	b, ok := w.Backend.(egressBackend)
	if !ok {
		return fmt.Errorf("workspace %s (%s) cannot enforce an egress policy", w.ID, w.Kind)
	}
	prog, err := egress.Compile(p, resolved)
	if err != nil {
		return fmt.Errorf("workspace %s: egress: %w", w.ID, err)
	}
	o, err := b.ApplyEgress(ctx, prog)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", w.ID, err)
	}
	if _, _, ok := egress.Decode(o); !ok {
		return fmt.Errorf("workspace %s: egress: the rules read back after programming them are not the policy", w.ID)
	}
	return nil
}

// RemoveEgress deletes the workspace's egress policy: its outbound
// traffic is no longer restricted.
func (e *Engine) RemoveEgress(ctx context.Context, w *Workspace) error {
	b, ok := w.Backend.(egressBackend)
	if !ok {
		return nil
	}
	if err := b.RemoveEgress(ctx); err != nil {
		return fmt.Errorf("workspace %s: %w", w.ID, err)
	}
	return nil
}

// ReadEgress returns the egress policy the workspace's network namespace
// enforces, with the addresses of its host rules; ok is false when it
// enforces none (no table, or one changed out of band).
func (e *Engine) ReadEgress(ctx context.Context, w *Workspace) (p egress.Policy, resolved map[string][]string, ok bool, err error) {
	b, isEgress := w.Backend.(egressBackend)
	if !isEgress {
		return egress.Policy{}, nil, false, nil
	}
	o, err := b.ReadEgress(ctx)
	if err != nil {
		return egress.Policy{}, nil, false, fmt.Errorf("workspace %s: %w", w.ID, err)
	}
	p, resolved, ok = egress.Decode(o)
	return p, resolved, ok, nil
}

// ResolveEgress resolves the host names of p's rules.
func ResolveEgress(ctx context.Context, p egress.Policy) (map[string][]string, error) {
	return egress.Resolve(ctx, p.Hosts())
}
