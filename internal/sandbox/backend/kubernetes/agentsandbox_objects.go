package kubernetes

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The objects of the agent-sandbox controller (sigs.k8s.io/agent-sandbox,
// API v1beta1), built as unstructured objects for a dynamic client: a
// Sandbox owns one pod made from its pod template; a SandboxWarmPool keeps
// ready Sandboxes made from a SandboxTemplate; a SandboxClaim takes one of
// them (or has one made from the pool's template when the pool is empty).
//
// Every pod template carries the workspace pod of a Spec (podTemplate):
// the keep-alive workspace container, the file helper's init container and
// protected volume, and the root, helper and accounts annotations, so a
// pod the controller creates serves a workspace as the provider's own
// pods do. Its labels and annotations must not use the prefixes
// agents.x-k8s.io/ and extensions.agents.x-k8s.io/: the controller drops
// them from the pod. It carries no expiry (a Sandbox's shutdownTime, or a
// claim's, takes the place of the deadline and the expiry Job).
//
// Unlike the provider's own pods, these have no helper init container
// waiting for the provider: a warm pool's pods must become ready with
// nobody there. The helper volume stays empty until the provider first
// uses the pod and installs the helper through an ephemeral container
// (helper_ephemeral.go); the pod template says so
// (AnnotationHelperDelivery).
const (
	AgentsGroup      = "agents.x-k8s.io"
	ExtensionsGroup  = "extensions.agents.x-k8s.io"
	AgentsAPIVersion = "v1beta1"

	KindSandbox         = "Sandbox"
	KindSandboxClaim    = "SandboxClaim"
	KindSandboxTemplate = "SandboxTemplate"
	KindSandboxWarmPool = "SandboxWarmPool"

	// AnnotationSandboxPodName names the pod of a Sandbox when it is not
	// the Sandbox's own name (Sandboxes adopted by earlier controllers).
	AnnotationSandboxPodName = "agents.x-k8s.io/pod-name"
	// AnnotationClaimSandboxName names the Sandbox a SandboxClaim took
	// from its warm pool, before its status says so.
	AnnotationClaimSandboxName = "agents.x-k8s.io/sandbox-name"
)

// The resources of the four kinds, for a dynamic client.
var (
	SandboxResource         = schema.GroupVersionResource{Group: AgentsGroup, Version: AgentsAPIVersion, Resource: "sandboxes"}
	SandboxClaimResource    = schema.GroupVersionResource{Group: ExtensionsGroup, Version: AgentsAPIVersion, Resource: "sandboxclaims"}
	SandboxTemplateResource = schema.GroupVersionResource{Group: ExtensionsGroup, Version: AgentsAPIVersion, Resource: "sandboxtemplates"}
	SandboxWarmPoolResource = schema.GroupVersionResource{Group: ExtensionsGroup, Version: AgentsAPIVersion, Resource: "sandboxwarmpools"}
)

// Shutdown policies and operating modes of the agent-sandbox objects.
const (
	ShutdownDelete           = "Delete"
	ShutdownDeleteForeground = "DeleteForeground" // SandboxClaim only
	ShutdownRetain           = "Retain"

	OperatingModeRunning   = "Running"
	OperatingModeSuspended = "Suspended"
)

// rootVolumeName is the pod volume the workspace root is mounted from
// (an emptyDir in pod()), and the name of the claim template that replaces
// it when the root is persistent.
const rootVolumeName = "workspace"

// RootVolume makes the workspace root a PersistentVolumeClaim instead of
// an emptyDir: it outlives the pod, so a Sandbox keeps its files when it
// is suspended and resumed.
//
// It becomes a volumeClaimTemplate named "workspace", the name of the
// volume the workspace container mounts at the root. The pod template
// leaves that volume out: the controller adds it, backed by the claim
// <template name>-<Sandbox name> that it creates and owns (a volume of
// the template with that name would be replaced by the claim's anyway).
// A pod made from the template without the controller therefore fails to
// start rather than silently keeping its root on an emptyDir. The claim is
// ReadWriteOnce and survives the pod's deletion at the shutdown time; it is
// deleted with its Sandbox.
type RootVolume struct {
	// Size is the requested storage, a quantity above zero ("10Gi").
	Size string
	// StorageClassName is the claim's class; "" for the cluster's default.
	StorageClassName string
}

// SandboxOptions is what a Sandbox sets besides its workspace Spec.
type SandboxOptions struct {
	// Root, when set, is the persistent root volume (see RootVolume).
	Root *RootVolume
	// ShutdownTime, when not zero, is when the controller deletes the pod
	// (and, with ShutdownPolicy Delete, the Sandbox).
	ShutdownTime time.Time
	// ShutdownPolicy is Delete, Retain or "" (the controller's default,
	// Retain).
	ShutdownPolicy string
	// Suspended asks for no pod (operatingMode Suspended); the Sandbox
	// and its root volume stay.
	Suspended bool
}

// TemplateOptions is what a SandboxTemplate sets besides its workspace
// Spec.
type TemplateOptions struct {
	// Labels are the template object's own labels.
	Labels map[string]string
	// Root, when set, is the persistent root volume of each Sandbox made
	// from the template.
	Root *RootVolume
	// ManagedNetworkPolicy lets the controller manage the template's
	// NetworkPolicy. By default it is Unmanaged: the policy the controller
	// would otherwise create admits ingress only from its own router and
	// denies egress to every private range, cluster DNS included, and its
	// pods would get public nameservers instead of the cluster's; the
	// provider reaches a workspace through the API server, not the
	// network, and a workspace behaves as the provider's own pods do.
	ManagedNetworkPolicy bool
}

// ClaimOptions is what a SandboxClaim sets besides its warm pool.
type ClaimOptions struct {
	// Labels are the claim object's own labels.
	Labels map[string]string
	// ShutdownTime, when not zero, is when the claim expires.
	ShutdownTime time.Time
	// ShutdownPolicy is Delete, DeleteForeground, Retain or "" (the
	// controller's default, Retain: the Sandbox is deleted, the claim
	// stays).
	ShutdownPolicy string
	// PodLabels and PodAnnotations are added to the pod of the Sandbox
	// the claim gets. The controller refuses label keys outside its
	// allowed domains (ValidateClaimPodMetadata) and any value that
	// differs from the template's for the same key.
	PodLabels, PodAnnotations map[string]string
}

// sandboxPodTemplate is the podTemplate of a Sandbox or SandboxTemplate
// for s: the workspace pod's labels, annotations and spec. A Spec without
// a WorkspaceID (a template serving many workspaces) leaves out the
// workspace label. With root, the root's emptyDir is left out for the
// controller to put the claim in its place (see RootVolume).
func (s Spec) sandboxPodTemplate(digest string, root *RootVolume) (map[string]any, error) {
	t, err := s.podTemplate(digest)
	if err != nil {
		return nil, err
	}
	if s.WorkspaceID == "" {
		delete(t.Labels, LabelWorkspaceID)
	}
	var inits []corev1.Container
	for _, c := range t.Spec.InitContainers {
		if c.Name != helperContainerName {
			inits = append(inits, c)
		}
	}
	t.Spec.InitContainers = inits
	t.Annotations[AnnotationHelperDelivery] = HelperDeliveryEphemeral
	for k, v := range expiryAnnotations(s.Expiry) { // the Sandbox's shutdownTime enforces it
		t.Annotations[k] = v
	}
	if root != nil {
		var vols []corev1.Volume
		for _, v := range t.Spec.Volumes {
			if v.Name != rootVolumeName {
				vols = append(vols, v)
			}
		}
		t.Spec.Volumes = vols
	}
	podSpec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&t.Spec)
	if err != nil {
		return nil, fmt.Errorf("converting the pod spec: %w", err)
	}
	meta := map[string]any{}
	putStrings(meta, "labels", t.Labels)
	putStrings(meta, "annotations", t.Annotations)
	return map[string]any{"metadata": meta, "spec": podSpec}, nil
}

// volumeClaimTemplates is the claim template of root (nil without one).
func volumeClaimTemplates(root *RootVolume) ([]any, error) {
	if root == nil {
		return nil, nil
	}
	q, err := ParseVolumeSize(root.Size)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{
		"accessModes": []any{string(corev1.ReadWriteOnce)},
		"resources":   map[string]any{"requests": map[string]any{string(corev1.ResourceStorage): q.String()}},
	}
	if root.StorageClassName != "" {
		spec["storageClassName"] = root.StorageClassName
	}
	return []any{map[string]any{"metadata": map[string]any{"name": rootVolumeName}, "spec": spec}}, nil
}

// blueprint is the part a Sandbox shares with a SandboxTemplate:
// podTemplate and volumeClaimTemplates.
func (s Spec) blueprint(digest string, root *RootVolume) (map[string]any, error) {
	pt, err := s.sandboxPodTemplate(digest, root)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"podTemplate": pt}
	vct, err := volumeClaimTemplates(root)
	if err != nil {
		return nil, err
	}
	if vct != nil {
		out["volumeClaimTemplates"] = vct
	}
	return out, nil
}

// Sandbox is the Sandbox name in s.Namespace whose pod is the workspace
// pod of s (with the helper of digest); it is labelled as that pod is.
// The pod is named name too.
func (s Spec) Sandbox(name, digest string, o SandboxOptions) (*unstructured.Unstructured, error) {
	if err := ValidateShutdownPolicy(KindSandbox, o.ShutdownPolicy); err != nil {
		return nil, err
	}
	spec, err := s.blueprint(digest, o.Root)
	if err != nil {
		return nil, err
	}
	spec["operatingMode"] = OperatingModeRunning
	if o.Suspended {
		spec["operatingMode"] = OperatingModeSuspended
	}
	if !o.ShutdownTime.IsZero() {
		spec["shutdownTime"] = FormatTime(o.ShutdownTime)
	}
	if o.ShutdownPolicy != "" {
		spec["shutdownPolicy"] = o.ShutdownPolicy
	}
	labels := s.labels()
	if s.WorkspaceID == "" {
		delete(labels, LabelWorkspaceID)
	}
	return object(AgentsGroup, KindSandbox, s.Namespace, name, labels, spec), nil
}

// SandboxTemplate is the SandboxTemplate name in s.Namespace whose pods
// are workspace pods of s (with the helper of digest).
func (s Spec) SandboxTemplate(name, digest string, o TemplateOptions) (*unstructured.Unstructured, error) {
	spec, err := s.blueprint(digest, o.Root)
	if err != nil {
		return nil, err
	}
	spec["networkPolicyManagement"] = "Unmanaged"
	if o.ManagedNetworkPolicy {
		spec["networkPolicyManagement"] = "Managed"
	}
	return object(ExtensionsGroup, KindSandboxTemplate, s.Namespace, name, o.Labels, spec), nil
}

// SandboxWarmPool is the SandboxWarmPool ns/name keeping replicas ready
// Sandboxes of the SandboxTemplate template (of the same namespace).
func SandboxWarmPool(ns, name, template string, replicas int32, labels map[string]string) *unstructured.Unstructured {
	spec := map[string]any{
		"replicas":           int64(replicas),
		"sandboxTemplateRef": map[string]any{"name": template},
	}
	return object(ExtensionsGroup, KindSandboxWarmPool, ns, name, labels, spec)
}

// SandboxClaim is the SandboxClaim ns/name taking a Sandbox of the
// SandboxWarmPool pool (of the same namespace).
func SandboxClaim(ns, name, pool string, o ClaimOptions) (*unstructured.Unstructured, error) {
	if err := ValidateShutdownPolicy(KindSandboxClaim, o.ShutdownPolicy); err != nil {
		return nil, err
	}
	spec := map[string]any{"warmPoolRef": map[string]any{"name": pool}}
	lifecycle := map[string]any{}
	if !o.ShutdownTime.IsZero() {
		lifecycle["shutdownTime"] = FormatTime(o.ShutdownTime)
	}
	if o.ShutdownPolicy != "" {
		lifecycle["shutdownPolicy"] = o.ShutdownPolicy
	}
	if len(lifecycle) > 0 {
		spec["lifecycle"] = lifecycle
	}
	meta := map[string]any{}
	putStrings(meta, "labels", o.PodLabels)
	putStrings(meta, "annotations", o.PodAnnotations)
	if len(meta) > 0 {
		spec["additionalPodMetadata"] = meta
	}
	return object(ExtensionsGroup, KindSandboxClaim, ns, name, o.Labels, spec), nil
}

// FormatTime is a time as the objects carry it: RFC 3339 in UTC, whole
// seconds (as the API server stores a metav1.Time).
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// object is an agent-sandbox object of kind in group.
func object(group, kind, ns, name string, labels map[string]string, spec map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name, "namespace": ns}
	putStrings(meta, "labels", labels)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/" + AgentsAPIVersion,
		"kind":       kind,
		"metadata":   meta,
		"spec":       spec,
	}}
}

// putStrings sets obj[key] to m as an unstructured object, unless m is
// empty.
func putStrings(obj map[string]any, key string, m map[string]string) {
	if len(m) == 0 {
		return
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	obj[key] = out
}
