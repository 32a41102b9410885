package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

func fieldErr(field, format string, args ...any) error {
	return &spec.DockerFieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// MinMemory is the smallest memory limit Docker accepts.
const MinMemory = 6 << 20

// MinDisk is the smallest Disk: the root must hold the provider's own
// temporary files.
const MinDisk = 1 << 20

// MinPidsLimit is the smallest PidsLimit: every operation of the provider
// runs the file helper through docker exec, which needs the runtime's
// exec process and the helper's threads (a Go program runs several) on top
// of the container's own processes; below this the helper cannot start.
const MinPidsLimit = 16

// ValidateIsolation checks iso for a container whose workspace root is root, with
// volumes mounted and accounts to provision (hasAccounts); the first
// problem is a *FieldError.
func ValidateIsolation(iso spec.DockerIsolation, root string, volumes []spec.VolumeMount, hasAccounts bool) error {
	switch {
	case iso.Memory != 0 && iso.Memory < MinMemory:
		return fieldErr("memory", "%s is below Docker's minimum of 6m", spec.FormatDockerSize(iso.Memory))
	case iso.MemorySwap != 0 && iso.Memory == 0:
		return fieldErr("memory_swap", "needs memory: it is the limit of memory plus swap")
	case iso.MemorySwap > 0 && iso.MemorySwap < iso.Memory:
		return fieldErr("memory_swap", "%s is below memory (%s): it counts memory plus swap", spec.FormatDockerSize(iso.MemorySwap), spec.FormatDockerSize(iso.Memory))
	case iso.MemorySwap < -1:
		return fieldErr("memory_swap", "expected a size, or -1 for unlimited swap")
	case iso.NanoCPUs < 0:
		return fieldErr("cpus", "must be positive")
	case iso.PidsLimit < 0:
		return fieldErr("pids_limit", "must be positive")
	case iso.PidsLimit > 0 && iso.PidsLimit < MinPidsLimit:
		return fieldErr("pids_limit", "%d is below the minimum of %d: the provider runs its file helper and commands in the container "+
			"with docker exec, which needs several processes and threads of its own beside the workspace's", iso.PidsLimit, MinPidsLimit)
	case iso.Disk != 0 && iso.Disk < MinDisk:
		return fieldErr("disk", "%s is below the minimum of 1m", spec.FormatDockerSize(iso.Disk))
	case iso.ReadOnlyRootfs && hasAccounts:
		return fieldErr("read_only_rootfs", "users and groups are provisioned by writing /etc/passwd and /etc/group, "+
			"which a read-only root filesystem refuses: give the image its accounts instead")
	}
	for _, p := range slices.Sorted(maps.Keys(iso.Tmpfs)) {
		switch {
		case !path.IsAbs(p) || path.Clean(p) != p:
			return fieldErr("tmpfs", "%q must be an absolute, clean path", p)
		case p == root && iso.Disk > 0:
			return fieldErr("tmpfs", "%q is the workspace root, which disk already makes a tmpfs of its size", p)
		case p == fshelper.HelperDir || strings.HasPrefix(p, fshelper.HelperDir+"/"):
			return fieldErr("tmpfs", "%q would hide the provider's file helper (%s)", p, fshelper.HelperDir)
		case slices.ContainsFunc(volumes, func(v spec.VolumeMount) bool { return v.Target == p }):
			return fieldErr("tmpfs", "%q is also the target of a volume", p)
		}
	}
	for _, c := range append(slices.Clone(iso.CapAdd), iso.CapDrop...) {
		if _, err := spec.NormalizeDockerCap(c); err != nil {
			field := "cap_add"
			if !slices.Contains(iso.CapAdd, c) {
				field = "cap_drop"
			}
			return &spec.DockerFieldError{Field: field, Err: err}
		}
	}
	if iso.Disk > 0 && slices.ContainsFunc(volumes, func(v spec.VolumeMount) bool { return v.Target == root }) {
		return fieldErr("disk", "a volume is mounted at the workspace root %s, which leaves no root to limit", root)
	}
	return nil
}

// runtimeInfo is what docker info says of the daemon's runtimes.
type runtimeInfo struct {
	names []string
	def   string
}

// Runtimes returns the names of the daemon's OCI runtimes, sorted, and its
// default one; read once.
func (d *Daemon) Runtimes(ctx context.Context) ([]string, string, error) {
	d.mu.Lock()
	r := d.runtimes
	d.mu.Unlock()
	if r != nil {
		return r.names, r.def, nil
	}
	// Concurrent first reads (the refresh of many workspaces) share one.
	r, err := backend.Shared(ctx, &d.reads, "docker info", func(ctx context.Context) (*runtimeInfo, error) {
		cli, err := d.api()
		if err != nil {
			return nil, err
		}
		info, err := cli.Info(ctx, client.InfoOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading the Docker daemon's runtimes: %w", err)
		}
		r := &runtimeInfo{def: info.Info.DefaultRuntime}
		for name := range info.Info.Runtimes {
			r.names = append(r.names, name)
		}
		slices.Sort(r.names)
		return r, nil
	})
	if err != nil {
		return nil, "", err
	}
	d.mu.Lock()
	d.runtimes = r
	d.mu.Unlock()
	return r.names, r.def, nil
}

// checkRuntime refuses a runtime the daemon does not have, naming those
// it has; "" (the daemon's default) passes.
func (d *Daemon) checkRuntime(ctx context.Context, name string) error {
	if name == "" {
		return nil
	}
	names, _, err := d.Runtimes(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(names, name) {
		return &spec.DockerFieldError{Field: "runtime", Err: fmt.Errorf("%w: the Docker daemon has no runtime %q; it has %s (docker info). "+
			"Register it in the daemon's configuration (daemon.json \"runtimes\") and reload the daemon", spec.ErrUnknownDockerRuntime, name,
			strings.Join(names, ", "))}
	}
	return nil
}

// CheckRuntime is checkRuntime for the provider's plan.
func (d *Daemon) CheckRuntime(ctx context.Context, name string) error {
	return d.checkRuntime(ctx, name)
}

// UpdateLimits applies the limits Docker changes on a running container
// (memory, memory plus swap, CPUs, processes), as `docker update` does.
func (b *Backend) UpdateLimits(ctx context.Context, iso spec.DockerIsolation) error {
	defer b.changed()
	cli, err := b.d.api()
	if err != nil {
		return err
	}
	res := container.Resources{Memory: iso.Memory, NanoCPUs: iso.NanoCPUs}
	if iso.Memory > 0 {
		res.MemorySwap = memorySwap(iso)
	}
	unlimited := int64(-1) // nil would leave the container's limit as it is
	res.PidsLimit = &unlimited
	if iso.PidsLimit > 0 {
		res.PidsLimit = &iso.PidsLimit
	}
	if _, err := cli.ContainerUpdate(ctx, b.id, client.ContainerUpdateOptions{Resources: &res}); err != nil {
		return fmt.Errorf("updating the limits of container %s: %w", short(b.id), err)
	}
	b.d.mu.Lock()
	delete(b.d.memLimits, b.id)
	b.d.mu.Unlock()
	return nil
}

// memoryLimited reports whether the container has a memory limit, read
// once per container.
func (d *Daemon) memoryLimited(ctx context.Context, id string) bool {
	d.mu.Lock()
	v, ok := d.memLimits[id]
	d.mu.Unlock()
	if ok {
		return v
	}
	c, found, err := d.inspect(ctx, id)
	if err != nil || !found {
		return false
	}
	v = c.HostConfig != nil && c.HostConfig.Memory > 0
	d.mu.Lock()
	d.memLimits[id] = v
	d.mu.Unlock()
	return v
}
