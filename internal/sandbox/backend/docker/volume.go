package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/volume"
	"github.com/moby/moby/client"
)

// LabelManaged is set to "true" on every volume CreateVolume creates, so
// that the provider's volumes can be told from anyone else's.
const LabelManaged = "sandbox.managed"

// DefaultVolumeDriver is the driver of a spec.DockerVolume without one, the
// daemon's own default.
const DefaultVolumeDriver = "local"

// minSecretLen is the length from which an option value is treated as a
// possible credential in error messages. Shorter values (flags such as
// "1" or "s3") can carry no credential, and replacing them everywhere
// would make the message unreadable.
const minSecretLen = 4

// CreateVolume creates the named volume with the spec's driver, options
// and labels. An existing volume of that name with the same driver and the
// same options is reused as it is (its labels are left alone); one with a
// different driver or options is an error naming the volume (and the
// option names that differ, never their values). Daemon errors have every
// option value replaced by "REDACTED".
func (d *Daemon) CreateVolume(ctx context.Context, s spec.DockerVolume) error {
	if s.Name == "" {
		return errors.New("volume name must not be empty")
	}
	driver := s.Driver
	if driver == "" {
		driver = DefaultVolumeDriver
	}
	cli, err := d.api()
	if err != nil {
		return err
	}
	existing, found, err := d.inspectVolume(ctx, s.Name)
	if err != nil {
		return redactOptions(err, s.Options)
	}
	if found {
		return sameVolume(existing, driver, s.Options)
	}
	labels := maps.Clone(s.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelManaged] = "true"
	res, err := cli.VolumeCreate(ctx, client.VolumeCreateOptions{Name: s.Name, Driver: driver, DriverOpts: s.Options, Labels: labels})
	if err != nil {
		return fmt.Errorf("creating volume %s with driver %s: %w", s.Name, driver, redactOptions(err, s.Options))
	}
	// A volume of the same name created meanwhile by someone else is
	// returned as it is: it must match too.
	return sameVolume(res.Volume, driver, s.Options)
}

// sameVolume checks that an existing volume has the wanted driver and
// options.
func sameVolume(v volume.Volume, driver string, options map[string]string) error {
	if canonicalDriver(v.Driver) != canonicalDriver(driver) {
		return fmt.Errorf("volume %s already exists with driver %q, not %q: remove it (docker volume rm %s) or choose another volume name",
			v.Name, v.Driver, driver, v.Name)
	}
	if maps.Equal(v.Options, options) {
		return nil
	}
	var differ []string
	for k, want := range options {
		if got, ok := v.Options[k]; !ok || got != want {
			differ = append(differ, k)
		}
	}
	for k := range v.Options {
		if _, ok := options[k]; !ok {
			differ = append(differ, k)
		}
	}
	sort.Strings(differ)
	return fmt.Errorf("volume %s already exists with driver %q but different driver options (%s differ): remove it (docker volume rm %s) or choose another volume name",
		v.Name, v.Driver, strings.Join(differ, ", "), v.Name)
}

// canonicalDriver drops the implicit ":latest" tag the daemon may report
// for a plugin driver.
func canonicalDriver(d string) string {
	return strings.TrimSuffix(d, ":latest")
}

// RemoveVolume removes the named volume. A volume that does not exist is
// not an error. A volume still mounted by a container is not removed: the
// error names the containers using it (with their workspace ids when they
// are workspaces).
func (d *Daemon) RemoveVolume(ctx context.Context, name string) error {
	if name == "" {
		return errors.New("volume name must not be empty")
	}
	cli, err := d.api()
	if err != nil {
		return err
	}
	_, err = cli.VolumeRemove(ctx, name, client.VolumeRemoveOptions{})
	switch {
	case err == nil, cerrdefs.IsNotFound(err):
		return nil
	case cerrdefs.IsConflict(err):
		if users := d.volumeUsers(ctx, name); len(users) > 0 {
			return fmt.Errorf("volume %s is in use by %s: destroy the workspace that mounts it, or remove the container, first",
				name, strings.Join(users, ", "))
		}
	}
	return fmt.Errorf("removing volume %s: %w", name, err)
}

// volumeUsers describes the containers that mount the named volume.
func (d *Daemon) volumeUsers(ctx context.Context, name string) []string {
	cli, err := d.api()
	if err != nil {
		return nil
	}
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("volume", name)})
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range res.Items {
		who := "container " + short(c.ID)
		if len(c.Names) > 0 {
			who = fmt.Sprintf("container %s (%s)", strings.TrimPrefix(c.Names[0], "/"), short(c.ID))
		}
		if ws := c.Labels[LabelWorkspaceID]; ws != "" {
			who += ", the container of workspace " + ws
		}
		out = append(out, who)
	}
	return out
}

// InspectVolume reports whether the named volume exists, and its driver
// and labels. A missing volume is Exists=false, not an error.
func (d *Daemon) InspectVolume(ctx context.Context, name string) (spec.DockerVolumeInfo, error) {
	v, found, err := d.inspectVolume(ctx, name)
	if err != nil || !found {
		return spec.DockerVolumeInfo{}, err
	}
	return spec.DockerVolumeInfo{Name: v.Name, Driver: v.Driver, Labels: v.Labels, Exists: true}, nil
}

// inspectVolume returns the volume, options included (for comparison and
// redaction only), or found=false when it does not exist.
func (d *Daemon) inspectVolume(ctx context.Context, name string) (volume.Volume, bool, error) {
	if name == "" {
		return volume.Volume{}, false, errors.New("volume name must not be empty")
	}
	cli, err := d.api()
	if err != nil {
		return volume.Volume{}, false, err
	}
	res, err := cli.VolumeInspect(ctx, name, client.VolumeInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return volume.Volume{}, false, nil
	}
	if err != nil {
		return volume.Volume{}, false, fmt.Errorf("inspecting volume %s: %w", name, err)
	}
	return res.Volume, true, nil
}

// redactOptions returns err with every option value of at least minSecretLen
// characters, in every encoding redact.SecretForms knows, replaced by
// "REDACTED". When nothing was replaced, err is returned unchanged; else
// the result carries only the redacted text, so the original message
// cannot be reached by unwrapping.
func redactOptions(err error, options map[string]string) error {
	if err == nil {
		return nil
	}
	var secrets []string
	for _, v := range options {
		if len(v) >= minSecretLen {
			secrets = append(secrets, v)
		}
	}
	// Longest first, so that a secret containing another is replaced whole.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	msg := redact.Text(err.Error(), secrets)
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// redactMounted redacts from err the options of every volume in vols, for
// errors of creating or starting a container that mounts them (a driver
// may echo its options when mounting fails).
func (d *Daemon) redactMounted(ctx context.Context, err error, vols []spec.VolumeMount) error {
	if err == nil || len(vols) == 0 {
		return err
	}
	options := map[string]string{}
	for i, m := range vols {
		v, found, ierr := d.inspectVolume(context.WithoutCancel(ctx), m.Name)
		if ierr != nil || !found {
			continue
		}
		for k, val := range v.Options {
			options[strconv.Itoa(i)+"/"+k] = val
		}
	}
	return redactOptions(err, options)
}
