package spec

import (
	"strings"

	"fmt"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// Docker is a container workspace to create, the Python SDK's Docker
// options (design/sdk-model.md §6.2): the provider builds it from the
// docker block, the engine fills in the root, and the Docker backend
// creates the container from it.
type Docker struct {
	// Image is the image reference; PullPolicy one of the Pull* constants
	// ("" means PullMissing).
	Image, PullPolicy string
	// NetworkMode is "" (the daemon's default network), "none" or a network
	// name.
	NetworkMode string
	// Labels are added to the container (docker.LabelWorkspaceID and docker.LabelRoot win).
	Labels map[string]string
	// FUSE grants /dev/fuse, CAP_SYS_ADMIN and apparmor:unconfined, as the
	// Python SDK does for in-container mounts.
	FUSE bool
	// RestartPolicy is Docker's restart policy: "" or "no", "on-failure",
	// "unless-stopped" or "always".
	RestartPolicy string
	// Hostname is the container's host name ("": Docker's, the start of
	// the container id).
	Hostname string
	// Root is the absolute workspace root inside the container, created at
	// start (mkdir -p).
	Root string
	// Environment is the container environment (the manifest's).
	Environment map[string]string
	// SecretEnvironment is added to the container environment too, but only
	// its names are recorded in docker.LabelSpec, apart from Environment's, so it is
	// never read back as Environment; commands run in the container have its
	// values redacted from their output (see Backend.SecretEnvironment).
	SecretEnvironment map[string]string
	// ExposedPorts are published on 127.0.0.1 with ephemeral host ports.
	ExposedPorts []int
	// Users and Groups are provisioned after start (design/sdk-model.md §4.1).
	Users  []sandbox.User
	Groups []sandbox.Group
	// Volumes are existing named volumes mounted when the container is
	// created, after any bind mounts (design/sdk-model.md §6.2); they are recorded in
	// docker.LabelSpec. Removing the container leaves them in place.
	Volumes []VolumeMount
	// Isolation holds the limits and hardening of the container.
	Isolation DockerIsolation
	// Networking holds the networks the container joins, its extra hosts
	// and DNS servers.
	Networking DockerNetworking
	// Grants are the workspace's path grants (posix.NewPathGrant): each
	// with a HostPath is bind-mounted at its Path, read-only when it says
	// so, before the volumes; all are recorded in docker.LabelSpec.
	Grants []posix.PathGrant
	// Expiry, when set, stops the container at its deadline by itself
	// and, with on_expiry "remove", has the daemon remove it (expiry.go).
	Expiry sandbox.Expiry
	// Healthcheck is the container's health check (nil: none given, the
	// image's own applies); it and WaitUntil are recorded in docker.LabelSpec.
	Healthcheck *Healthcheck
	// WaitUntil is the workspace's wait_until ("started" or "healthy"),
	// recorded so that an import reads it back; Create does not wait.
	WaitUntil string
}

// DockerInfo is what the daemon reports of a workspace container.
type DockerInfo struct {
	// Image is the image reference the container was created from.
	Image string
	// NetworkMode is "" for the daemon's default network, else "none" or
	// the network name.
	NetworkMode string
	// Labels are the container's labels without docker.LabelWorkspaceID,
	// docker.LabelRoot and the labels inherited unchanged from the image.
	Labels map[string]string
	// FUSE reports the FUSE grant (CAP_SYS_ADMIN with /dev/fuse).
	FUSE bool
	// RestartPolicy is the container's restart policy name ("no" when
	// none is set).
	RestartPolicy string
	// Hostname is the host name given at creation ("" when none was).
	Hostname string
	// HasSpec reports that the container carries docker.LabelSpec, so the fields
	// below are what it was created with.
	HasSpec bool
	// ExposedPorts, Users, Groups, Environment and Volumes are read back
	// from docker.LabelSpec (environment values from the container's
	// configuration), Volumes in the order they were given.
	ExposedPorts []int
	Users        []sandbox.User
	Groups       []sandbox.Group
	Environment  map[string]string
	Volumes      []VolumeMount
	// Isolation is read back from the container's configuration (its
	// Runtime is "" when the container runs the daemon's default without
	// docker.LabelSpec naming it).
	Isolation DockerIsolation
	// Networking is read back from the container: the networks it is on
	// besides NetworkMode's (sorted by name), extra hosts and DNS servers.
	Networking DockerNetworking
	// Grants are the path grants docker.LabelSpec recorded, a host_path grant as
	// its bind mount is on the container, then bind mounts it did not
	// record.
	Grants []posix.PathGrant
	// Healthcheck is the health check given at creation (nil when none
	// was, even if the image has one); WaitUntil the workspace's
	// wait_until then ("" when not recorded).
	Healthcheck *Healthcheck
	WaitUntil   string
}

// DockerNetwork is an existing Docker network a workspace container joins, with
// the names (aliases) other containers on it reach the workspace by. The
// provider never creates or removes networks.
type DockerNetwork struct {
	Name    string
	Aliases []string
}

// DockerNetworking is how a container is networked besides NetworkMode: the
// networks it joins, the entries added to its /etc/hosts and its DNS
// servers.
type DockerNetworking struct {
	// Networks are joined in order: with no NetworkMode the first is the
	// container's network mode and the container is on these networks
	// only; otherwise they are joined besides the NetworkMode network.
	Networks []DockerNetwork
	// ExtraHosts maps host names to an IP address or "host-gateway" (the
	// daemon host's address), as `docker run --add-host`.
	ExtraHosts map[string]string
	// DNS are the container's DNS servers, IP addresses in order.
	DNS []string
}

// Healthcheck is Docker's own health check of a container (HealthConfig):
// Test is ["CMD", argv...] or ["CMD-SHELL", command]; a zero duration or
// retry count means Docker's default.
type Healthcheck struct {
	Test                           []string
	Interval, Timeout, StartPeriod time.Duration
	Retries                        int
}

// VolumeMount attaches an existing named volume to a workspace container
// at creation (the Python SDK's docker_volume strategy, design/sdk-model.md §5.3): Docker
// mounts it when the container is created, so the mounts of a container
// never change afterwards.
type VolumeMount struct {
	// Name is the volume's name on the daemon; the volume must exist
	// (CreateVolume, or `docker volume create`).
	Name string
	// Target is the absolute, clean path inside the container: below the
	// workspace root (such as "/workspace/data") or outside it, but never
	// the root itself, a directory containing the root, or the file
	// helper's directory.
	Target string
	// ReadOnly mounts the volume read-only (the Python SDK's default for mounts).
	ReadOnly bool
}

// MissingVolumeError is returned by the Docker backend's Create when a VolumeMount names a
// volume the daemon does not have. Docker would otherwise create an empty
// local volume of that name in its place.
type MissingVolumeError struct {
	// Name is the missing volume's name.
	Name string
}

func (e *MissingVolumeError) Error() string {
	return fmt.Sprintf("volume %q does not exist on the Docker daemon: it must be created before the workspace that mounts it "+
		"(by a storage mount resource with the docker_volume strategy, or with `docker volume create %s`)", e.Name, e.Name)
}

// VolumeMountError is a refused volume mount of a Docker spec: Index is its
// position in Docker.Volumes.
type VolumeMountError struct {
	// Index is the position of the refused mount in Docker.Volumes.
	Index int
	// Reason says what is wrong, naming the volume and its target.
	Reason string
}

func (e *VolumeMountError) Error() string { return e.Reason }

// CheckHostname refuses a host name Docker would refuse for the network
// mode: a container on the host's network or on another container's has
// that one's host name.
func (d Docker) CheckHostname() error {
	if d.Hostname == "" {
		return nil
	}
	if d.NetworkMode == "host" || strings.HasPrefix(d.NetworkMode, "container:") {
		return fmt.Errorf("hostname cannot be set with network_mode %q: the container has the host name of the network "+
			"namespace it joins", d.NetworkMode)
	}
	return nil
}
