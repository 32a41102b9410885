package spec

import (
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Kubernetes is a pod workspace to create: the provider builds it from
// the kubernetes block, the engine fills in the root, and the Kubernetes
// backend creates the pod (and the Service of its exposed ports) from it.
// Read back from a pod, it is what the workspace was created with.
type Kubernetes struct {
	// Namespace is the pod's namespace (it must exist).
	Namespace string
	// Image and ImagePullPolicy ("Always", "IfNotPresent", "Never"; ""
	// for the cluster's default) are the container's.
	Image, ImagePullPolicy string
	// Labels are added to the pod (and the Service).
	Labels map[string]string
	// ServiceAccount, NodeSelector and RuntimeClassName go to the pod spec.
	ServiceAccount   string
	NodeSelector     map[string]string
	RuntimeClassName string
	// Requests and Limits are the container's resources ("cpu",
	// "memory", "ephemeral-storage", ... to quantities).
	Requests, Limits map[string]string
	// Privileged runs the container privileged (FUSE mounts need it).
	Privileged bool
	// Egress gives the pod the container that programs its egress policy
	// (CAP_NET_ADMIN in that container only); without it a policy cannot
	// be enforced, nor added later.
	Egress bool
	// Root is the absolute workspace root, an emptyDir volume.
	Root string
	// Environment, ExposedPorts, Users and Groups are the manifest's.
	Environment  map[string]string
	ExposedPorts []int
	Users        []sandbox.User
	Groups       []sandbox.Group
	// StartTimeout bounds the wait for the pod to run (0: the default).
	StartTimeout time.Duration
	// Expiry ends the pod at its deadline, and with on_expiry "remove"
	// deletes it and its Service (the Kubernetes backend's expiry Job).
	Expiry sandbox.Expiry
}

// AgentSandbox is an agent_sandbox workspace to create: a SandboxClaim on
// the SandboxWarmPool WarmPool, or else a Sandbox whose pod is the one
// Kubernetes describes. Namespace, Users, Groups, StartTimeout and Expiry
// apply to both; the pod's settings and Root, to a Sandbox only (a
// claimed Sandbox's come from its pool's SandboxTemplate).
type AgentSandbox struct {
	Kubernetes
	// WarmPool names the SandboxWarmPool to claim from ("" for a Sandbox).
	WarmPool string
	// VolumeSize and StorageClassName put a Sandbox's root on a
	// PersistentVolumeClaim ("" for an emptyDir).
	VolumeSize, StorageClassName string
}

// KubernetesFieldError is a refused setting of a Kubernetes spec: Field
// names it as the
// kubernetes block does ("namespace", "resources", ...), or "root" and
// "exposed_ports" of the workspace.
type KubernetesFieldError struct {
	Field string
	Err   error
}

func (e *KubernetesFieldError) Error() string { return e.Err.Error() }
func (e *KubernetesFieldError) Unwrap() error { return e.Err }

// KubernetesConfig says how to reach the cluster. With nothing set, the kubeconfig
// of $KUBECONFIG or ~/.kube/config is used, else the in-cluster
// configuration of a provider running in a pod.
type KubernetesConfig struct {
	// ConfigPath is a kubeconfig file ("~" expands to the home directory).
	ConfigPath string
	// ConfigContext selects a context of the kubeconfig ("": its current).
	ConfigContext string
	// Host, ClusterCACertificate (PEM) and Token or ClientCertificate and
	// ClientKey (PEM) give the cluster directly instead of a kubeconfig.
	Host, ClusterCACertificate, Token, ClientCertificate, ClientKey string
}
