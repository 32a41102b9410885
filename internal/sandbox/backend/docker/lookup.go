package docker

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// Found is a workspace container as the daemon reports it.
type Found struct {
	// ID is the container's full id; Root its LabelRoot.
	ID, Root string
	// Running is false for a stopped or paused container; Paused tells
	// the two apart (a paused one keeps its processes and ports).
	Running, Paused bool
	// StartedAt is when it was last started (RFC 3339).
	StartedAt string
	// Expiry is what its labels record (see expiry.go).
	Expiry sandbox.Expiry
	// seen is the inspect that found it (see OpenFound).
	seen *container.InspectResponse
}

// Lookup finds the container of workspace uuid on this daemon: the
// container named "sandbox-<uuid>" when it carries the workspace label
// (one inspect), else any container carrying it. ok is false when there is
// none. It only reads.
func (d *Daemon) Lookup(ctx context.Context, uuid string) (Found, bool, error) {
	return d.lookup(ctx, uuid, 0)
}

// LookupRecent is Lookup that may answer from a lookup of the same
// container that finished less than backend.RecentRead ago, when this
// process has changed no container since (backend.SharedFresh): the open
// of a workspace for each of its entries.
func (d *Daemon) LookupRecent(ctx context.Context, uuid string) (Found, bool, error) {
	return d.lookup(ctx, uuid, backend.RecentRead)
}

func (d *Daemon) lookup(ctx context.Context, uuid string, maxAge time.Duration) (Found, bool, error) {
	c, ok, err := d.inspectShared(ctx, "sandbox-"+uuid, maxAge)
	if err != nil {
		return Found{}, false, err
	}
	if !ok || c.Config == nil || c.Config.Labels[LabelWorkspaceID] != uuid {
		cid, err := d.labelledOnce(ctx, uuid)
		if err != nil || cid == "" {
			return Found{}, false, err
		}
		if c, ok, err = d.inspectShared(ctx, cid, maxAge); err != nil || !ok {
			return Found{}, false, err
		}
	}
	f := Found{ID: c.ID, seen: &c}
	if c.Config != nil {
		f.Root = c.Config.Labels[LabelRoot]
		f.Expiry = expiryOf(c.Config.Labels)
	}
	if c.State != nil {
		// A restarting container (between the runs of its restart
		// policy, as an expired one is) reports Running too, but takes no
		// exec: it counts as stopped.
		f.Running = c.State.Running && !c.State.Paused && !c.State.Restarting
		f.Paused = c.State.Paused
		f.StartedAt = c.State.StartedAt
	}
	return f, true, nil
}

// FindByContainer returns the workspace UUID of the container with the
// given id or name, or, when containerID is "", of the one workspace
// container carrying every label of labels. It only reads.
func (d *Daemon) FindByContainer(ctx context.Context, containerID string, labels map[string]string) (string, error) {
	if containerID != "" {
		c, ok, err := d.inspect(ctx, containerID)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("the Docker daemon has no container %q", containerID)
		}
		if c.Config == nil || c.Config.Labels[LabelWorkspaceID] == "" {
			return "", fmt.Errorf("container %q is not a workspace of this provider (it has no %s label)", containerID, LabelWorkspaceID)
		}
		for k, v := range labels {
			if c.Config.Labels[k] != v {
				return "", fmt.Errorf("container %q does not carry the label %s=%s", containerID, k, v)
			}
		}
		return c.Config.Labels[LabelWorkspaceID], nil
	}
	if len(labels) == 0 {
		return "", fmt.Errorf("give a container id or labels to find a workspace container by")
	}
	cli, err := d.api()
	if err != nil {
		return "", err
	}
	f := make(client.Filters).Add("label", LabelWorkspaceID)
	keys := make([]string, 0, len(labels))
	for k, v := range labels {
		f = f.Add("label", k+"="+v)
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return "", err
	}
	switch len(res.Items) {
	case 0:
		return "", fmt.Errorf("no workspace container carries the labels %s", strings.Join(keys, ", "))
	case 1:
		return res.Items[0].Labels[LabelWorkspaceID], nil
	}
	return "", fmt.Errorf("%d workspace containers carry the labels %s; add labels that single one out, or give its id", len(res.Items), strings.Join(keys, ", "))
}

// DaemonID returns the daemon's own id (docker info's ID), read once.
func (d *Daemon) DaemonID(ctx context.Context) (string, error) {
	d.mu.Lock()
	id := d.daemonID
	d.mu.Unlock()
	if id != "" {
		return id, nil
	}
	cli, err := d.api()
	if err != nil {
		return "", err
	}
	info, err := cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return "", fmt.Errorf("reading the Docker daemon's id: %w", err)
	}
	d.mu.Lock()
	d.daemonID = info.Info.ID
	d.mu.Unlock()
	return info.Info.ID, nil
}

// labelledOnce returns the one container (renamed, so not found by its
// name) that was given the label of workspace uuid at creation, or "" when
// there is none. A container that only inherited the label from its image
// (one run from a `docker commit` of the workspace) is not the workspace;
// two that both carry it are an error, never a silent choice.
func (d *Daemon) labelledOnce(ctx context.Context, uuid string) (string, error) {
	cli, err := d.api()
	if err != nil {
		return "", err
	}
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All: true, Filters: make(client.Filters).Add("label", LabelWorkspaceID+"="+uuid),
	})
	if err != nil {
		return "", err
	}
	var own []string
	for _, c := range res.Items {
		if img, err := cli.ImageInspect(ctx, c.ImageID); err == nil && img.Config != nil && img.Config.Labels[LabelWorkspaceID] == uuid {
			continue // inherited from a committed image
		}
		own = append(own, c.ID)
	}
	switch len(own) {
	case 0:
		return "", nil
	case 1:
		return own[0], nil
	}
	return "", fmt.Errorf("%d containers carry the label %s=%s and none is named sandbox-%s: the workspace cannot be told apart "+
		"from its copies; remove the copies, or rename the workspace's container back to sandbox-%s", len(own), LabelWorkspaceID, uuid, uuid, uuid)
}

// sharedInspect is an inspect's answer, shared by concurrent lookups.
type sharedInspect struct {
	c  container.InspectResponse
	ok bool
}

// inspectShared is inspect for lookups: concurrent lookups of one
// container share one request (backend.SharedReads), and with maxAge a
// recent one answers. The answer is only
// read, never changed, by those who share it.
func (d *Daemon) inspectShared(ctx context.Context, id string, maxAge time.Duration) (container.InspectResponse, bool, error) {
	r, err := backend.SharedFresh(ctx, &d.reads, "container "+id, maxAge, func(ctx context.Context) (sharedInspect, error) {
		c, ok, err := d.inspect(ctx, id)
		return sharedInspect{c, ok}, err
	})
	return r.c, r.ok, err
}
