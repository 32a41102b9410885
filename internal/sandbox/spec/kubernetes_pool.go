package spec

// KubernetesTemplate is an agent-sandbox SandboxTemplate to declare: every
// Sandbox made from it (by a SandboxWarmPool, or for a SandboxClaim) runs
// the workspace pod of Pod. Pod.Namespace is the template's namespace;
// only the fields a template can carry are used (not ExposedPorts, Users,
// Groups, Egress, StartTimeout or Expiry). Read back from the cluster, it
// is what the template holds now.
type KubernetesTemplate struct {
	// Name is the SandboxTemplate's name (a DNS-1123 subdomain).
	Name string
	// Pod is the workspace pod of each Sandbox: image, pull policy, pod
	// labels, service account, node selector, RuntimeClass, resources,
	// privilege, root and environment.
	Pod Kubernetes
	// RootVolume, when set, puts the workspace root on a
	// PersistentVolumeClaim of its own per Sandbox instead of an emptyDir,
	// so that its files survive a suspend and resume.
	RootVolume *KubernetesRootVolume
	// ManagedNetworkPolicy lets the agent-sandbox controller manage the
	// template's NetworkPolicy (networkPolicyManagement Managed); false
	// leaves it Unmanaged.
	ManagedNetworkPolicy bool
}

// KubernetesRootVolume is the PersistentVolumeClaim a Sandbox's workspace
// root lives on.
type KubernetesRootVolume struct {
	// Size is the requested storage, a quantity above zero ("10Gi").
	Size string
	// StorageClassName is the claim's class; "" for the cluster's default.
	StorageClassName string
}

// KubernetesWarmPool is an agent-sandbox SandboxWarmPool to declare: it
// keeps Replicas Sandboxes of the SandboxTemplate named Template (in the
// same namespace) ready to be claimed.
type KubernetesWarmPool struct {
	Namespace, Name, Template string
	Replicas                  int64
}

// KubernetesWarmPoolStatus is what a SandboxWarmPool holds now: its spec
// (Template, Replicas) and what its controller reports (ReadyReplicas:
// its Sandboxes whose pods are ready).
type KubernetesWarmPoolStatus struct {
	Template      string
	Replicas      int64
	ReadyReplicas int64
}
