package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"net/netip"
	"sort"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// Pull policies of Spec.PullPolicy.
const (
	PullMissing = "missing" // pull only when the daemon lacks the image (default)
	PullAlways  = "always"  // pull before every creation
	PullNever   = "never"   // never pull; a missing image is an error
)

// Labels set on every workspace container, besides the user's own.
const (
	LabelWorkspaceID = "sandbox.workspace_id"
	LabelRoot        = "sandbox.root"
)

// Spec is what Create makes a container from: the declared workspace and
// the id the engine gave it.
type Spec struct {
	spec.Docker
	// WorkspaceID names the container ("sandbox-<id>") and is its
	// LabelWorkspaceID label.
	WorkspaceID string

	// helperDigest names the file helper volume mounted read-only at
	// fshelper.HelperDir (see helpervolume.go); "" mounts none.
	helperDigest string
}

// Validate checks what can be checked without the daemon.
func (s Spec) Validate() error {
	if err := s.CheckHostname(); err != nil {
		return err
	}
	switch s.PullPolicy {
	case "", PullMissing, PullAlways, PullNever:
	default:
		return fmt.Errorf("pull_policy %q: expected %q, %q or %q", s.PullPolicy, PullMissing, PullAlways, PullNever)
	}
	if s.Image == "" {
		return errors.New("image must not be empty")
	}
	switch s.RestartPolicy {
	case "", "no", "on-failure", "unless-stopped", "always":
	default:
		return fmt.Errorf("restart_policy %q: expected \"no\", \"on-failure\", \"unless-stopped\" or \"always\"", s.RestartPolicy)
	}
	if s.NetworkMode == "none" && len(s.ExposedPorts) > 0 {
		return errors.New(spec.NetworkNoneMessage)
	}
	for k := range s.SecretEnvironment {
		if _, ok := s.Environment[k]; ok {
			return fmt.Errorf("environment variable %s is given both as a plain and as a secret value", k)
		}
	}
	if err := ValidateVolumes(s.Root, s.Volumes); err != nil {
		return err
	}
	if err := s.validateExpiry(); err != nil {
		return err
	}
	if err := s.validateNetworkAndGrants(); err != nil {
		return err
	}
	return ValidateIsolation(s.Isolation, s.Root, s.Volumes, len(s.Users)+len(s.Groups) > 0)
}

// Daemon is a connection to one Docker daemon, made on first use.
type Daemon struct {
	cfg  HostConfig
	once sync.Once
	cli  *client.Client
	err  error

	helpers  incontainer.HelperCache // containers whose helper answers
	reads    backend.SharedReads     // lookups in flight
	volumeMu sync.Mutex              // serialises filling helper volumes

	mu        sync.Mutex
	daemonID  string                       // docker info ID, once read
	runtimes  *runtimeInfo                 // docker info runtimes, once read
	memLimits map[string]bool              // container id -> whether it has a memory limit
	imgLabels map[string]map[string]string // image id (digest) -> its labels
}

// NewDaemon returns a Daemon for cfg; nothing is contacted until used.
func NewDaemon(cfg HostConfig) *Daemon {
	return &Daemon{cfg: cfg, memLimits: map[string]bool{}, imgLabels: map[string]map[string]string{}}
}

func (d *Daemon) api() (*client.Client, error) {
	d.once.Do(func() { d.cli, d.err = NewClient(d.cfg) })
	return d.cli, d.err
}

// Ping checks that the daemon answers.
func (d *Daemon) Ping(ctx context.Context) error {
	cli, err := d.api()
	if err != nil {
		return err
	}
	_, err = cli.Ping(ctx, client.PingOptions{})
	return err
}

// Create pulls the image as the policy says, creates and starts the
// container with its volumes mounted, installs the file helper, creates
// the root and provisions the accounts. On any failure the container is
// removed again. A volume the daemon does not have is a
// *MissingVolumeError and a network a *MissingNetworkError, checked before
// anything is created, a missing grant host path a *MissingHostPathError;
// errors of
// creating or starting the container have the mounted volumes' driver
// options redacted.
func (d *Daemon) Create(ctx context.Context, s Spec) (*Backend, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cli, err := d.api()
	if err != nil {
		return nil, err
	}
	if err := d.checkVolumesExist(ctx, s.Volumes); err != nil {
		return nil, err
	}
	if err := d.checkNetworksExist(ctx, s.Networking.Networks); err != nil {
		return nil, err
	}
	if err := d.checkRuntime(ctx, s.Isolation.Runtime); err != nil {
		return nil, err
	}
	if err := d.ensureImage(ctx, s.Image, s.PullPolicy); err != nil {
		return nil, err
	}
	h, err := incontainer.FindHelper()
	if err != nil {
		return nil, err
	}
	if err := d.ensureHelperVolume(ctx, s.Image, h); err != nil {
		return nil, err
	}
	s.helperDigest = h.Digest
	cfg, hc := containerConfig(s)
	nc, more := applyNetworking(s, hc)
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: hc, NetworkingConfig: nc,
		Name: "sandbox-" + s.WorkspaceID})
	if err != nil {
		if missing := missingBindSource(err, s.Grants); missing != nil {
			return nil, missing
		}
		return nil, fmt.Errorf("creating the container from %s: %w", s.Image, d.redactMounted(ctx, err, s.Volumes))
	}
	b := d.Open(created.ID, s.Root)
	ok := false
	defer func() {
		if !ok {
			_ = d.Remove(context.WithoutCancel(ctx), created.ID)
		}
	}()
	if err := d.connect(ctx, created.ID, more...); err != nil {
		return nil, err
	}
	_, err = cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{})
	d.reads.Changed()
	if err != nil {
		return nil, fmt.Errorf("starting container %s: %w", short(created.ID), d.redactMounted(ctx, err, s.Volumes))
	}
	if err := b.InitRoot(ctx); err != nil {
		return nil, err
	}
	if err := b.Provision(ctx, s.Users, s.Groups); err != nil {
		return nil, err
	}
	ok = true
	return b, nil
}

// ContainerConfig returns the container and host configuration a
// workspace of s is created with (before the file helper's volume).
func ContainerConfig(s Spec) (*container.Config, *container.HostConfig) { return containerConfig(s) }

func containerConfig(s Spec) (*container.Config, *container.HostConfig) {
	labels := map[string]string{}
	for k, v := range s.Labels {
		labels[k] = v
	}
	labels[LabelWorkspaceID] = s.WorkspaceID
	labels[LabelRoot] = s.Root
	labels[LabelSpec] = specLabelOf(s)
	env := make([]string, 0, len(s.Environment)+len(s.SecretEnvironment))
	for k, v := range s.Environment {
		env = append(env, k+"="+v)
	}
	for k, v := range s.SecretEnvironment {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	cfg := &container.Config{
		Image:       s.Image,
		Hostname:    s.Hostname,
		Entrypoint:  []string{"tail"},
		Cmd:         []string{"-f", "/dev/null"},
		Env:         env,
		Labels:      labels,
		Healthcheck: healthConfig(s.Healthcheck),
	}
	hc := &container.HostConfig{}
	if s.RestartPolicy != "" {
		hc.RestartPolicy = container.RestartPolicy{Name: container.RestartPolicyMode(s.RestartPolicy)}
	}
	if s.NetworkMode != "" {
		hc.NetworkMode = container.NetworkMode(s.NetworkMode)
	}
	if len(s.ExposedPorts) > 0 {
		cfg.ExposedPorts = network.PortSet{}
		hc.PortBindings = network.PortMap{}
		for _, p := range s.ExposedPorts {
			port := tcpPort(p)
			cfg.ExposedPorts[port] = struct{}{}
			hc.PortBindings[port] = []network.PortBinding{{HostIP: netip.MustParseAddr("127.0.0.1")}}
		}
	}
	if s.FUSE {
		hc.Devices = []container.DeviceMapping{{PathOnHost: "/dev/fuse", PathInContainer: "/dev/fuse", CgroupPermissions: "rwm"}}
		hc.CapAdd = []string{"SYS_ADMIN"}
		hc.SecurityOpt = []string{"apparmor:unconfined"}
	}
	// The Python SDK mounts bind mounts first, then the volumes.
	hc.Mounts = append(bindMounts(s.Grants), volumeMounts(s.Volumes)...)
	if s.helperDigest != "" {
		hc.Mounts = append(hc.Mounts, helperMount(s.helperDigest))
	}
	applyIsolation(s, cfg, hc)
	applyExpiry(s, cfg, hc)
	return cfg, hc
}

func tcpPort(p int) network.Port {
	port, _ := network.PortFrom(uint16(p), network.TCP)
	return port
}

// Remove force-removes the container and the anonymous volumes created
// with it; the named volumes of Spec.Volumes stay. A container that is
// already gone is not an error.
func (d *Daemon) Remove(ctx context.Context, containerID string) error {
	cli, err := d.api()
	if err != nil {
		return err
	}
	_, err = cli.ContainerRemove(ctx, containerID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	d.reads.Changed()
	d.helpers.Forget(containerID)
	d.mu.Lock()
	delete(d.memLimits, containerID)
	d.mu.Unlock()
	if err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("removing container %s: %w", short(containerID), err)
	}
	return nil
}

// Open returns the Backend of an existing container; nothing is contacted.
func (d *Daemon) Open(containerID, root string) *Backend {
	b := &Backend{d: d, id: containerID}
	r := containerRunner{d: d, id: containerID}
	b.Workspace = incontainer.New(r, containerID, root, &d.helpers, incontainer.Hooks{
		Start:         b.Start,
		MemoryLimited: func(ctx context.Context) bool { return d.memoryLimited(ctx, containerID) },
		ExplainBroken: b.explainBroken,
		Protected:     b.protectedHelper,
		Ran:           d.reads.Changed,
	})
	return b
}

// FindWorkspace returns the id and root of the container labelled with
// the workspace id, or "" when there is none.
func (d *Daemon) FindWorkspace(ctx context.Context, workspaceID string) (containerID, root string, err error) {
	cli, err := d.api()
	if err != nil {
		return "", "", err
	}
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", LabelWorkspaceID+"="+workspaceID),
	})
	if err != nil {
		return "", "", err
	}
	for _, c := range res.Items {
		return c.ID, c.Labels[LabelRoot], nil
	}
	return "", "", nil
}

// inspect returns the container, or ok=false when it does not exist.
func (d *Daemon) inspect(ctx context.Context, id string) (container.InspectResponse, bool, error) {
	cli, err := d.api()
	if err != nil {
		return container.InspectResponse{}, false, err
	}
	res, err := cli.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if cerrdefs.IsNotFound(err) {
		return container.InspectResponse{}, false, nil
	}
	if err != nil {
		return container.InspectResponse{}, false, fmt.Errorf("inspecting container %s: %w", short(id), err)
	}
	return res.Container, true, nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
