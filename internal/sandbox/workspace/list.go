package workspace

import (
	"context"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/kubernetes"
)

// Listed is a workspace found by ListDocker or ListKubernetes: one this
// provider created, whether or not any Terraform state still holds it.
type Listed struct {
	// ID is the workspace id (what sandbox_workspace's id holds and its
	// import takes); Kind "docker" or "kubernetes".
	ID, Kind string
	// ContainerID is the container of a docker workspace; Namespace and
	// PodName are the pod of a kubernetes workspace.
	ContainerID, Namespace, PodName string
	// Image is what the container runs; Root the workspace root in it.
	Image, Root string
	// Labels are the container's or pod's labels without the provider's
	// own.
	Labels map[string]string
	// RunState is what the backend observes: "running", "paused" or
	// "stopped" for a container, the pod's phase lower-cased for a pod.
	RunState string
	// CreatedAt is the creation time and ExpiresAt the recorded expiry
	// (RFC 3339, UTC); ExpiresAt is "" when none is recorded.
	CreatedAt, ExpiresAt string
}

// Refused is a container or pod carrying the provider's workspace label
// that is not one of its workspaces (a copy, a container from a committed
// image, one made by hand), and why.
type Refused struct {
	// Object is "container <id>" or "pod <namespace>/<name>".
	Object, Reason string
}

// ListDocker lists the docker workspaces on the configured daemon whose
// containers carry every label of labels, oldest first. It only reads.
func (e *Engine) ListDocker(ctx context.Context, labels map[string]string) ([]Listed, []Refused, error) {
	found, refused, err := e.docker.List(ctx, labels)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Listed, 0, len(found))
	for _, f := range found {
		out = append(out, Listed{
			ID: DockerID(f.UUID), Kind: docker.Kind, ContainerID: f.ContainerID, Image: f.Image, Root: f.Root,
			Labels: f.Labels, RunState: f.State, CreatedAt: f.Created, ExpiresAt: f.ExpiresAt,
		})
	}
	var not []Refused
	for _, r := range refused {
		not = append(not, Refused{Object: "container " + short(r.ContainerID), Reason: r.Reason})
	}
	return out, not, nil
}

// ListKubernetes lists the kubernetes workspaces in namespace ns of the
// configured cluster whose pods carry every label of labels, oldest
// first. It only reads.
func (e *Engine) ListKubernetes(ctx context.Context, ns string, labels map[string]string) ([]Listed, []Refused, error) {
	found, refused, err := e.kube.List(ctx, ns, labels)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Listed, 0, len(found))
	for _, f := range found {
		out = append(out, Listed{
			ID: KubernetesID(f.UUID, ns), Kind: kubernetes.Kind, Namespace: ns, PodName: f.Name, Image: f.Image, Root: f.Root,
			Labels: f.Labels, RunState: f.Phase, CreatedAt: f.Created, ExpiresAt: f.ExpiresAt,
		})
	}
	var not []Refused
	for _, r := range refused {
		not = append(not, Refused{Object: "pod " + ns + "/" + r.Name, Reason: r.Reason})
	}
	return out, not, nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
