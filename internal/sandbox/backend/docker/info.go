package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
)

// Describe reads Info from the daemon.
func (b *Backend) Describe(ctx context.Context) (spec.DockerInfo, error) {
	c, ok, err := b.inspect(ctx)
	if err != nil {
		return spec.DockerInfo{}, err
	}
	if !ok {
		return spec.DockerInfo{}, fmt.Errorf("container %s no longer exists", short(b.id))
	}
	info := spec.DockerInfo{RestartPolicy: "no"}
	if c.Config != nil {
		info.Image = c.Config.Image
		// Labels the image itself carries were not given at creation.
		inherited := b.d.imageLabels(ctx, c.Image)
		for k, v := range c.Config.Labels {
			if iv, ok := inherited[k]; k == LabelWorkspaceID || k == LabelRoot || k == LabelSpec || expiryLabel(k) || (ok && iv == v) {
				continue
			}
			if info.Labels == nil {
				info.Labels = map[string]string{}
			}
			info.Labels[k] = v
		}
	}
	var label specLabel
	if c.Config != nil {
		if raw, ok := c.Config.Labels[LabelSpec]; ok {
			label = readSpecLabel(raw, c.Config.Env, &info)
		}
	}
	if c.Config != nil && label.Healthcheck {
		info.Healthcheck = healthcheckOf(c.Config.Healthcheck)
	}
	if c.Config != nil && label.Hostname {
		info.Hostname = c.Config.Hostname
	}
	primary := primaryNetwork(c)
	info.Networking = readNetworking(c, primary)
	info.Grants = readGrants(c.HostConfig, info.Grants)
	if hc := c.HostConfig; hc != nil {
		if nm := string(hc.NetworkMode); nm != "" && nm != "default" && nm != "bridge" && !primary {
			info.NetworkMode = nm
		}
		if n := string(hc.RestartPolicy.Name); n != "" {
			info.RestartPolicy = n
		}
		for _, d := range hc.Devices {
			if d.PathInContainer == "/dev/fuse" {
				info.FUSE = true
			}
		}
	}
	root := b.Root()
	if c.Config != nil && c.Config.Labels[LabelRoot] != "" {
		root = c.Config.Labels[LabelRoot]
	}
	_, def, _ := b.d.Runtimes(ctx)
	info.Isolation = readIsolation(c.Config, c.HostConfig, root, def, label.Runtime, info.FUSE)
	return info, nil
}

// imageLabels returns the labels of the image with the given id (a
// content digest, so what it says never changes): read once per process
// and image, concurrent first reads sharing one request. nil when the
// image cannot be read.
func (d *Daemon) imageLabels(ctx context.Context, id string) map[string]string {
	d.mu.Lock()
	l, ok := d.imgLabels[id]
	d.mu.Unlock()
	if ok {
		return l
	}
	l, err := backend.Shared(ctx, &d.reads, "image "+id, func(ctx context.Context) (map[string]string, error) {
		cli, err := d.api()
		if err != nil {
			return nil, err
		}
		img, err := cli.ImageInspect(ctx, id)
		if err != nil {
			return nil, err
		}
		if img.Config == nil {
			return map[string]string{}, nil
		}
		return img.Config.Labels, nil
	})
	if err != nil {
		return nil
	}
	if strings.HasPrefix(id, "sha256:") {
		d.mu.Lock()
		d.imgLabels[id] = l
		d.mu.Unlock()
	}
	return l
}
