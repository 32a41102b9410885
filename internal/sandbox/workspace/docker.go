package workspace

import (
	"context"
	"fmt"
	"path"

	"github.com/google/uuid"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// DefaultDockerRoot is the workspace root inside a container when none is
// given, the seed's default manifest root.
const DefaultDockerRoot = "/workspace"

// DockerSpec describes a docker workspace to create (SPEC §6.2).
type DockerSpec struct {
	// Image, PullPolicy, NetworkMode, Labels and FUSE are the container
	// options; see docker.Spec.
	Image, PullPolicy, NetworkMode string
	Labels                         map[string]string
	FUSE                           bool
	// Root is the absolute root inside the container, "" for
	// DefaultDockerRoot.
	Root string
	// Environment, ExposedPorts, Users and Groups are the manifest's.
	Environment  map[string]string
	ExposedPorts []int
	Users        []sandbox.User
	Groups       []sandbox.Group
	// SecretEnvironment is added to the container environment but never
	// read back as Environment (see docker.Spec.SecretEnvironment); its
	// values are redacted from creation errors and from command output.
	SecretEnvironment map[string]string
	// Volumes are existing named volumes mounted into the container at
	// creation, each at an absolute target (see VolumeMount). A volume the
	// daemon does not have fails the creation with a *MissingVolumeError.
	Volumes []VolumeMount
}

// CreateDocker creates a container workspace with a new id: the image is
// pulled as the policy says, the container started and kept alive with
// its volumes mounted, the root created, and users and groups provisioned
// (SPEC §4.1). The container is removed again if any step fails.
func (e *Engine) CreateDocker(ctx context.Context, spec DockerSpec) (*Workspace, error) {
	id := uuid.NewString()
	root := spec.Root
	if root == "" {
		root = DefaultDockerRoot
	}
	if !path.IsAbs(root) || path.Clean(root) != root {
		return nil, fmt.Errorf("workspace root %q must be an absolute, clean POSIX path", root)
	}
	b, err := e.docker.Create(ctx, docker.Spec{
		WorkspaceID: id, Image: spec.Image, PullPolicy: spec.PullPolicy, NetworkMode: spec.NetworkMode,
		Labels: spec.Labels, FUSE: spec.FUSE, Root: root, Environment: spec.Environment,
		SecretEnvironment: spec.SecretEnvironment,
		ExposedPorts:      spec.ExposedPorts, Users: spec.Users, Groups: spec.Groups, Volumes: spec.Volumes,
	})
	if err != nil {
		return nil, envSecrets(spec.SecretEnvironment).Error(err)
	}
	rec := Record{ID: id, Kind: docker.Kind, Root: root, ContainerID: b.ContainerID()}
	if err := e.registry.Put(rec); err != nil {
		_ = e.docker.Remove(context.WithoutCancel(ctx), b.ContainerID())
		return nil, err
	}
	return &Workspace{ID: id, Kind: docker.Kind, Root: root, ContainerID: b.ContainerID(), Backend: b}, nil
}

// AdoptDocker registers the container labelled with workspace id id
// (docker.LabelWorkspaceID) when the registry has no record of it, so that
// a docker workspace can be imported on another machine or after its
// record was lost. It fails when no such container exists.
func (e *Engine) AdoptDocker(ctx context.Context, id string) (*Workspace, error) {
	if _, err := e.registry.Get(id); err == nil {
		return e.Open(ctx, id)
	}
	cid, root, err := e.docker.FindWorkspace(ctx, id)
	if err != nil {
		return nil, err
	}
	if cid == "" {
		return nil, fmt.Errorf("no workspace %s: neither a registry record nor a container labelled %s=%s", id, docker.LabelWorkspaceID, id)
	}
	if root == "" {
		root = DefaultDockerRoot
	}
	if err := e.registry.Put(Record{ID: id, Kind: docker.Kind, Root: root, ContainerID: cid}); err != nil {
		return nil, err
	}
	return e.Open(ctx, id)
}

// Endpoints returns where each port of the workspace is reached from the
// host, in the order given: for a docker workspace the binding the daemon
// reports; for a local workspace 127.0.0.1 and the port itself (SPEC §6.3).
// Port is the host port in each endpoint.
func (e *Engine) Endpoints(ctx context.Context, w *Workspace, ports []int) ([]sandbox.ExposedPortEndpoint, error) {
	if b, ok := w.Backend.(*docker.Backend); ok {
		return b.Endpoints(ctx, ports)
	}
	out := make([]sandbox.ExposedPortEndpoint, 0, len(ports))
	for _, p := range ports {
		out = append(out, sandbox.ExposedPortEndpoint{Host: "127.0.0.1", Port: p})
	}
	return out, nil
}

// DockerHostConfig says how to reach the Docker daemon (see
// docker.HostConfig); the provider fills it from its block.
type DockerHostConfig = docker.HostConfig

// CheckDockerHost validates a daemon configuration without contacting the
// daemon: the host URL's form and the TLS material (a CA is required).
func CheckDockerHost(c DockerHostConfig) error { return c.Check() }

// DockerInfo is what the daemon reports of a workspace container, for
// import: the image it runs, its network mode ("" for the default), the
// labels it was given (without the provider's own) and whether it has the
// FUSE grant.
type DockerInfo = docker.Info

// DescribeDocker reads DockerInfo of a docker workspace.
func (e *Engine) DescribeDocker(ctx context.Context, w *Workspace) (DockerInfo, error) {
	b, ok := w.Backend.(*docker.Backend)
	if !ok {
		return DockerInfo{}, fmt.Errorf("workspace %s is not a docker workspace", w.ID)
	}
	return b.Describe(ctx)
}

// NetworkNoneMessage is the seed's refusal of exposed ports on a container
// without a network (SPEC §6.2).
const NetworkNoneMessage = docker.NetworkNoneMessage
