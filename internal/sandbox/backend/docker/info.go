package docker

import (
	"context"
	"fmt"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Info is what the daemon reports of a workspace container.
type Info struct {
	// Image is the image reference the container was created from.
	Image string
	// NetworkMode is "" for the daemon's default network, else "none" or
	// the network name.
	NetworkMode string
	// Labels are the container's labels without LabelWorkspaceID,
	// LabelRoot and the labels inherited unchanged from the image.
	Labels map[string]string
	// FUSE reports the FUSE grant (CAP_SYS_ADMIN with /dev/fuse).
	FUSE bool
	// RestartPolicy is the container's restart policy name ("no" when
	// none is set).
	RestartPolicy string
	// HasSpec reports that the container carries LabelSpec, so the fields
	// below are what it was created with.
	HasSpec bool
	// ExposedPorts, Users, Groups, Environment and Volumes are read back
	// from LabelSpec (environment values from the container's
	// configuration), Volumes in the order they were given.
	ExposedPorts []int
	Users        []sandbox.User
	Groups       []sandbox.Group
	Environment  map[string]string
	Volumes      []VolumeMount
	// Isolation is read back from the container's configuration (its
	// Runtime is "" when the container runs the daemon's default without
	// LabelSpec naming it).
	Isolation Isolation
	// namedRuntime is the runtime LabelSpec names ("": none).
	namedRuntime string
	// Networking is read back from the container: the networks it is on
	// besides NetworkMode's (sorted by name), extra hosts and DNS servers.
	Networking Networking
	// Grants are the path grants LabelSpec recorded, a host_path grant as
	// its bind mount is on the container, then bind mounts it did not
	// record.
	Grants []sandbox.PathGrant
	// Healthcheck is the health check given at creation (nil when none
	// was, even if the image has one); WaitUntil the workspace's
	// wait_until then ("" when not recorded).
	Healthcheck *Healthcheck
	WaitUntil   string
	// ownHealthcheck is LabelSpec's record that a health check was given.
	ownHealthcheck bool
}

// Describe reads Info from the daemon.
func (b *Backend) Describe(ctx context.Context) (Info, error) {
	c, ok, err := b.inspect(ctx)
	if err != nil {
		return Info{}, err
	}
	if !ok {
		return Info{}, fmt.Errorf("container %s no longer exists", short(b.id))
	}
	info := Info{RestartPolicy: "no"}
	if c.Config != nil {
		info.Image = c.Config.Image
		// Labels the image itself carries were not given at creation.
		var inherited map[string]string
		if cli, err := b.d.api(); err == nil {
			if img, err := cli.ImageInspect(ctx, c.Image); err == nil && img.Config != nil {
				inherited = img.Config.Labels
			}
		}
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
	if c.Config != nil {
		if raw, ok := c.Config.Labels[LabelSpec]; ok {
			readSpecLabel(raw, c.Config.Env, &info)
		}
	}
	if c.Config != nil && info.ownHealthcheck {
		info.Healthcheck = healthcheckOf(c.Config.Healthcheck)
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
	info.Isolation = readIsolation(c.Config, c.HostConfig, root, def, info.namedRuntime, info.FUSE)
	return info, nil
}
