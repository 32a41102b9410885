package docker

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/moby/moby/client"
)

// listExpiresLabel is the container label holding a workspace's expiry
// (RFC 3339, UTC); List reports it when it parses.
const listExpiresLabel = "sandbox.expires_at"

// Run states of a listed container.
const (
	StateRunning = "running"
	StatePaused  = "paused"
	StateStopped = "stopped"
)

// Listed is a workspace container found by List.
type Listed struct {
	// UUID is its LabelWorkspaceID, ContainerID its full id, Name its name
	// without the leading "/", Image the image reference it was created
	// from and Root its LabelRoot.
	UUID, ContainerID, Name, Image, Root string
	// Labels are its labels without the provider's own and without those
	// inherited unchanged from its image.
	Labels map[string]string
	// State is StateRunning, StatePaused or StateStopped (created, exited
	// or dead).
	State string
	// Created is when it was created (RFC 3339, UTC); ExpiresAt its
	// listExpiresLabel, normalised to RFC 3339 UTC, or "" when it has none
	// or one that does not parse.
	Created, ExpiresAt string
}

// Refused is a container carrying LabelWorkspaceID that List did not
// report, and why.
type Refused struct {
	ContainerID, Reason string
}

// List returns the workspace containers this provider created on the
// daemon that carry every label of want, sorted by creation time, and the
// containers that carry the workspace label but fail the checks of
// notOwnReason (a copy, a container from an image committed from a
// workspace, one created by hand). When several containers that pass
// carry one workspace's UUID, only the one named "sandbox-<uuid>" is
// listed (it is the one the workspace id reaches); with none so named all
// are refused. It only reads: it lists and inspects containers, their
// images and the helper volumes.
func (d *Daemon) List(ctx context.Context, want map[string]string) ([]Listed, []Refused, error) {
	cli, err := d.api()
	if err != nil {
		return nil, nil, err
	}
	f := make(client.Filters).Add("label", LabelWorkspaceID)
	for k, v := range want {
		f = f.Add("label", k+"="+v)
	}
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, nil, fmt.Errorf("listing containers: %w", err)
	}
	images := map[string]map[string]string{}
	volumes := map[string]map[string]string{}
	helperVolume := func(name string) (map[string]string, bool, error) {
		if l, ok := volumes[name]; ok {
			return l, l != nil, nil
		}
		v, found, err := d.inspectVolume(ctx, name)
		if err != nil {
			return nil, false, err
		}
		volumes[name] = nil
		if found {
			volumes[name] = map[string]string{}
			for k, val := range v.Labels {
				volumes[name][k] = val
			}
		}
		return volumes[name], found, nil
	}
	var (
		passed  []Listed
		refused []Refused
	)
	for _, item := range res.Items {
		c, ok, err := d.inspect(ctx, item.ID)
		if err != nil {
			return nil, nil, err
		}
		if !ok || c.Config == nil {
			continue // removed since the list
		}
		if !carries(c.Config.Labels, want) {
			continue
		}
		imgLabels, ok := images[c.Image]
		if !ok {
			img, err := cli.ImageInspect(ctx, c.Image)
			if err == nil && img.Config != nil {
				imgLabels = img.Config.Labels
			}
			images[c.Image] = imgLabels
		}
		vol := ""
		if hcVol, ok := helperMountOf(c.HostConfig); ok {
			vol = hcVol.Source
		}
		var volLabels map[string]string
		volFound := false
		if vol != "" {
			if volLabels, volFound, err = helperVolume(vol); err != nil {
				return nil, nil, err
			}
		}
		if why := notOwnReason(c, imgLabels, volLabels, volFound); why != "" {
			refused = append(refused, Refused{ContainerID: c.ID, Reason: why})
			continue
		}
		passed = append(passed, listedOf(c, imgLabels))
	}
	out, dup := singleByUUID(passed)
	refused = append(refused, dup...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Created != out[j].Created {
			return out[i].Created < out[j].Created
		}
		return out[i].UUID < out[j].UUID
	})
	sort.Slice(refused, func(i, j int) bool { return refused[i].ContainerID < refused[j].ContainerID })
	return out, refused, nil
}

func carries(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// singleByUUID keeps one container per workspace UUID: the one named
// "sandbox-<uuid>" when several carry it, none when none is so named.
func singleByUUID(all []Listed) ([]Listed, []Refused) {
	by := map[string][]Listed{}
	for _, l := range all {
		by[l.UUID] = append(by[l.UUID], l)
	}
	var out []Listed
	var refused []Refused
	for uuid, ls := range by {
		if len(ls) == 1 {
			out = append(out, ls[0])
			continue
		}
		named := -1
		for i, l := range ls {
			if l.Name == "sandbox-"+uuid {
				named = i
			}
		}
		for i, l := range ls {
			switch {
			case i == named:
				out = append(out, l)
			case named >= 0:
				refused = append(refused, Refused{ContainerID: l.ContainerID, Reason: fmt.Sprintf(
					"it carries the workspace label of container sandbox-%s, which is that workspace", uuid)})
			default:
				refused = append(refused, Refused{ContainerID: l.ContainerID, Reason: fmt.Sprintf(
					"%d containers carry the workspace label %s=%s and none is named sandbox-%s", len(ls), LabelWorkspaceID, uuid, uuid)})
			}
		}
	}
	return out, refused
}

func listedOf(c inspected, imgLabels map[string]string) Listed {
	l := Listed{
		UUID: c.Config.Labels[LabelWorkspaceID], ContainerID: c.ID, Name: strings.TrimPrefix(c.Name, "/"),
		Image: c.Config.Image, Root: c.Config.Labels[LabelRoot], State: StateStopped,
		Created: rfc3339(c.Created), ExpiresAt: rfc3339(c.Config.Labels[listExpiresLabel]),
	}
	for k, v := range c.Config.Labels {
		switch k {
		case LabelWorkspaceID, LabelRoot, LabelSpec, listExpiresLabel:
			continue
		}
		if iv, ok := imgLabels[k]; ok && iv == v {
			continue
		}
		if l.Labels == nil {
			l.Labels = map[string]string{}
		}
		l.Labels[k] = v
	}
	if s := c.State; s != nil {
		switch {
		case s.Paused:
			l.State = StatePaused
		case s.Running:
			l.State = StateRunning
		}
	}
	return l
}

// rfc3339 normalises a timestamp to RFC 3339 in UTC (whole seconds), or
// gives "" when s does not parse.
func rfc3339(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
