package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/egress"
)

// LabelEgress marks the short-lived container that programs or reads a
// workspace's egress policy, with the workspace container's id.
const LabelEgress = "sandbox.egress_of"

// egressLifetime bounds the rule container's life should the provider
// die before removing it: its helper's keep-alive ends by then, and the
// daemon removes it (AutoRemove).
const egressLifetime = 2 * time.Minute

// egressOutputLimit bounds the helper's answer (untrusted: it ran in the
// workspace's image and namespace).
const egressOutputLimit = 1 << 20

// ApplyEgress replaces the egress table in the workspace's network
// namespace with prog and returns what is there afterwards.
func (b *Backend) ApplyEgress(ctx context.Context, prog egress.Program) (egress.Observed, error) {
	in, err := json.Marshal(prog)
	if err != nil {
		return egress.Observed{}, err
	}
	return b.egress(ctx, "apply", in)
}

// RemoveEgress deletes the egress table from the workspace's network
// namespace.
func (b *Backend) RemoveEgress(ctx context.Context) error {
	_, err := b.egress(ctx, "remove", nil)
	return err
}

// ReadEgress returns what egress table the workspace's network namespace
// holds. A stopped container has no namespace: ErrStopped.
func (b *Backend) ReadEgress(ctx context.Context) (egress.Observed, error) {
	return b.egress(ctx, "list", nil)
}

// egress runs the file helper's egress operation sub in a container made
// for it from the workspace's own image, joined to the workspace's
// network namespace (network_mode container:<id>) with CAP_NET_ADMIN and
// no other capability, the helper volume mounted read-only; the
// container is removed again whatever happens. Nothing is pulled, and the
// workspace itself never gains the capability.
func (b *Backend) egress(ctx context.Context, sub string, stdin []byte) (egress.Observed, error) {
	c, found, err := b.d.inspect(ctx, b.id)
	if err != nil {
		return egress.Observed{}, err
	}
	if !found {
		return egress.Observed{}, fmt.Errorf("container %s no longer exists", short(b.id))
	}
	if c.State == nil || !c.State.Running || c.State.Paused {
		return egress.Observed{}, fmt.Errorf("container %s has no network namespace while it is not running: %w", short(b.id), backend.ErrStopped)
	}
	helper, err := b.protectedHelper(ctx, incontainer.Helper{})
	if err != nil {
		return egress.Observed{}, err
	}
	if helper == "" {
		return egress.Observed{}, fmt.Errorf("container %s was created without the file helper volume: re-create the workspace to give it an egress policy", short(b.id))
	}
	if mode := string(c.HostConfig.NetworkMode); mode == "none" || mode == "host" {
		return egress.Observed{}, fmt.Errorf("container %s has network_mode %q: egress cannot be enforced there", short(b.id), mode)
	}
	cli, err := b.d.api()
	if err != nil {
		return egress.Observed{}, err
	}
	var digest string
	for _, m := range c.Mounts {
		if m.Destination == fshelper.HelperDir {
			digest = m.Name[len(HelperVolumePrefix):]
		}
	}
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config: &container.Config{Image: c.Image, User: "0:0", Entrypoint: []string{helper},
			Cmd:    []string{fshelper.OpKeepAlive, time.Now().Add(egressLifetime).UTC().Format(time.RFC3339)},
			Labels: map[string]string{LabelEgress: b.id}},
		HostConfig: &container.HostConfig{NetworkMode: container.NetworkMode("container:" + b.id),
			CapDrop: []string{"ALL"}, CapAdd: []string{"NET_ADMIN"}, SecurityOpt: []string{"no-new-privileges"},
			ReadonlyRootfs: true, AutoRemove: true, Mounts: []mount.Mount{helperMount(digest)}},
	})
	if err != nil {
		return egress.Observed{}, fmt.Errorf("creating the egress rule container for %s: %w", short(b.id), err)
	}
	defer func() {
		_, _ = cli.ContainerRemove(context.WithoutCancel(ctx), created.ID, client.ContainerRemoveOptions{Force: true})
	}()
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return egress.Observed{}, fmt.Errorf("starting the egress rule container for %s: %w", short(b.id), err)
	}
	spec := execSpec{argv: []string{helper, fshelper.OpEgress, sub}, user: "0:0", limit: egressOutputLimit, strict: true}
	if stdin != nil {
		spec.stdin = bytes.NewReader(stdin)
	}
	res, err := b.d.run(ctx, created.ID, spec)
	if err != nil {
		return egress.Observed{}, fmt.Errorf("egress %s in the namespace of container %s: %w", sub, short(b.id), err)
	}
	if res.ExitCode != 0 {
		return egress.Observed{}, fmt.Errorf("egress %s in the namespace of container %s failed (exit %d): %s", sub, short(b.id), res.ExitCode,
			bytes.TrimSpace(res.Stderr))
	}
	var o egress.Observed
	dec := json.NewDecoder(bytes.NewReader(res.Stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return egress.Observed{}, fmt.Errorf("egress %s in the namespace of container %s: unreadable answer: %w", sub, short(b.id), err)
	}
	if len(o.Comments) > egress.MaxNftRules+32 {
		return egress.Observed{}, errors.New("egress: too many rules in the answer")
	}
	return o, nil
}
