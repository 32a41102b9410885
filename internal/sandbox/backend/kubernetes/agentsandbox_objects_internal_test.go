package kubernetes

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	sandboxCRD  = "agents.x-k8s.io_sandboxes.yaml"
	claimCRD    = "extensions.agents.x-k8s.io_sandboxclaims.yaml"
	templateCRD = "extensions.agents.x-k8s.io_sandboxtemplates.yaml"
	poolCRD     = "extensions.agents.x-k8s.io_sandboxwarmpools.yaml"
)

var shutdownAt = time.Date(2030, 1, 2, 3, 4, 5, 600, time.FixedZone("CET", 3600))

// usable fails t unless u survives what a dynamic client does with it:
// a deep copy (which panics on non-JSON values) and JSON.
func usable(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	c := u.DeepCopy()
	if _, err := json.Marshal(c.Object); err != nil {
		t.Fatal(err)
	}
}

// Every object, with every option set and with none, is one of its CRD:
// no field the CRD lacks, no wrong type or enum value, the required fields
// there; and the resources named for a dynamic client are the CRDs'.
func TestAgentSandboxObjectsMatchCRDs(t *testing.T) {
	s := representativeSpecs()["egress"]
	root := &RootVolume{Size: "10Gi", StorageClassName: "fast"}
	objs := map[string][]*unstructured.Unstructured{}
	add := func(file string, u *unstructured.Unstructured, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		usable(t, u)
		objs[file] = append(objs[file], u)
	}
	u, err := s.Sandbox("box", testDigest, SandboxOptions{})
	add(sandboxCRD, u, err)
	u, err = s.Sandbox("box", testDigest, SandboxOptions{Root: root, ShutdownTime: shutdownAt, ShutdownPolicy: ShutdownDelete, Suspended: true})
	add(sandboxCRD, u, err)
	u, err = s.SandboxTemplate("tpl", testDigest, TemplateOptions{})
	add(templateCRD, u, err)
	u, err = s.SandboxTemplate("tpl", testDigest, TemplateOptions{Labels: map[string]string{"a": "b"}, Root: root, ManagedNetworkPolicy: true})
	add(templateCRD, u, err)
	u, err = SandboxClaim("agents", "claim", "pool", ClaimOptions{})
	add(claimCRD, u, err)
	u, err = SandboxClaim("agents", "claim", "pool", ClaimOptions{
		Labels: map[string]string{"a": "b"}, ShutdownTime: shutdownAt, ShutdownPolicy: ShutdownDeleteForeground,
		PodLabels: map[string]string{"sandbox.users.io/owner": "me"}, PodAnnotations: map[string]string{"note": "x"},
	})
	add(claimCRD, u, err)
	add(poolCRD, SandboxWarmPool("agents", "pool", "tpl", 3, nil), nil)
	add(poolCRD, SandboxWarmPool("agents", "pool", "tpl", 0, map[string]string{"a": "b"}), nil)

	for file, list := range objs {
		for _, u := range list {
			checkAgainstCRD(t, file, u.Object)
		}
	}
	for file, gvr := range map[string]struct{ group, resource string }{
		sandboxCRD:  {SandboxResource.Group, SandboxResource.Resource},
		claimCRD:    {SandboxClaimResource.Group, SandboxClaimResource.Resource},
		templateCRD: {SandboxTemplateResource.Group, SandboxTemplateResource.Resource},
		poolCRD:     {SandboxWarmPoolResource.Group, SandboxWarmPoolResource.Resource},
	} {
		if c := loadCRD(t, file); c.group != gvr.group || c.plural != gvr.resource {
			t.Errorf("%s serves %s %s, the resource says %s %s", file, c.group, c.plural, gvr.group, gvr.resource)
		}
	}
}

// The schema check is not vacuous: a misspelt field, a wrong type, an enum
// value the CRD lacks and a missing required field are each reported.
func TestAgentSandboxSchemaCheckCatchesMistakes(t *testing.T) {
	c := loadCRD(t, sandboxCRD)
	s := representativeSpecs()["privileged"]
	for name, mutate := range map[string]func(o map[string]any){
		"misspelt": func(o map[string]any) { asMap(o["spec"])["shutdownPolicyy"] = "Delete" },
		"deep typo": func(o map[string]any) {
			asMap(asMap(asMap(o["spec"])["podTemplate"])["spec"])["initContainer"] = []any{}
		},
		"type":      func(o map[string]any) { asMap(o["spec"])["operatingMode"] = int64(1) },
		"enum":      func(o map[string]any) { asMap(o["spec"])["shutdownPolicy"] = "DeleteForeground" },
		"date-time": func(o map[string]any) { asMap(o["spec"])["shutdownTime"] = "tomorrow" },
		"required":  func(o map[string]any) { delete(asMap(o["spec"]), "podTemplate") },
		"null":      func(o map[string]any) { asMap(o["spec"])["service"] = nil },
	} {
		u, err := s.Sandbox("box", testDigest, SandboxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if errs := schemaErrors(c.kind, u.Object, c.schema); len(errs) != 0 {
			t.Fatalf("valid Sandbox refused: %v", errs)
		}
		mutate(u.Object)
		if errs := schemaErrors(c.kind, u.Object, c.schema); len(errs) != 1 {
			t.Errorf("%s: %v, want one error", name, errs)
		}
	}
}

// podTemplateOf reads a built object's spec.podTemplate back.
func podTemplateOf(t *testing.T, u *unstructured.Unstructured) corev1.PodTemplateSpec {
	t.Helper()
	m, found, err := unstructured.NestedMap(u.Object, "spec", "podTemplate")
	if err != nil || !found {
		t.Fatalf("no spec.podTemplate: %v", err)
	}
	var out corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A Sandbox's pod template is the workspace pod: the pod the controller
// makes from it (named after the Sandbox) is the provider's pod of the
// same Spec, labels, annotations and spec alike, but for the helper: no
// init container waits for it, and an annotation says an ephemeral
// container installs it.
func TestSandboxPodTemplateIsTheWorkspacePod(t *testing.T) {
	for name, s := range representativeSpecs() {
		u, err := s.Sandbox("box", testDigest, SandboxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.pod(testDigest)
		if err != nil {
			t.Fatal(err)
		}
		if want.Spec.InitContainers[0].Name != helperContainerName {
			t.Fatalf("%s: the pod's first init container is %s", name, want.Spec.InitContainers[0].Name)
		}
		want.Spec.InitContainers = want.Spec.InitContainers[1:]
		want.Annotations[AnnotationHelperDelivery] = HelperDeliveryEphemeral
		got := podTemplateOf(t, u)
		if !apiequality.Semantic.DeepEqual(got.Spec, want.Spec) || !apiequality.Semantic.DeepEqual(got.Labels, want.Labels) ||
			!apiequality.Semantic.DeepEqual(got.Annotations, want.Annotations) {
			t.Errorf("%s: Sandbox pod template %+v differs from the pod %+v", name, got, want)
		}
		if u.GetName() != "box" || u.GetNamespace() != s.Namespace || u.GetLabels()[LabelWorkspaceID] != s.WorkspaceID ||
			u.GetLabels()[LabelManagedBy] != ManagedBy {
			t.Errorf("%s: metadata %v", name, u.Object["metadata"])
		}
		if mode, _, _ := unstructured.NestedString(u.Object, "spec", "operatingMode"); mode != OperatingModeRunning {
			t.Errorf("%s: operatingMode %q", name, mode)
		}
	}
}

// With a root volume, the root's emptyDir leaves the pod template and a
// claim template of the same name takes its place: merged as the
// controller merges it, the workspace container mounts the claim at the
// root; the helper volume stays an emptyDir. A template without a
// WorkspaceID carries no workspace label.
func TestRootVolumeReplacesTheEmptyDir(t *testing.T) {
	s := representativeSpecs()["egress"]
	s.WorkspaceID = ""
	for _, build := range []func() (*unstructured.Unstructured, error){
		func() (*unstructured.Unstructured, error) {
			return s.Sandbox("box", testDigest, SandboxOptions{Root: &RootVolume{Size: "1536Mi"}})
		},
		func() (*unstructured.Unstructured, error) {
			return s.SandboxTemplate("tpl", testDigest, TemplateOptions{Root: &RootVolume{Size: "1536Mi"}})
		},
	} {
		u, err := build()
		if err != nil {
			t.Fatal(err)
		}
		pt := podTemplateOf(t, u)
		if _, ok := pt.Labels[LabelWorkspaceID]; ok {
			t.Errorf("%s: workspace label on a template without a workspace id", u.GetKind())
		}
		vcts, _, _ := unstructured.NestedSlice(u.Object, "spec", "volumeClaimTemplates")
		if len(vcts) != 1 {
			t.Fatalf("%s: volumeClaimTemplates %v", u.GetKind(), vcts)
		}
		vct := vcts[0].(map[string]any)
		vname, _, _ := unstructured.NestedString(vct, "metadata", "name")
		size, _, _ := unstructured.NestedString(vct, "spec", "resources", "requests", "storage")
		modes, _, _ := unstructured.NestedStringSlice(vct, "spec", "accessModes")
		if _, has := vct["spec"].(map[string]any)["storageClassName"]; has || size != "1536Mi" || len(modes) != 1 || modes[0] != "ReadWriteOnce" {
			t.Errorf("%s: claim template %v", u.GetKind(), vct)
		}
		// What the controller does (MergeVolumeClaimVolumes): a claim
		// volume named after each template, replacing one of that name.
		vols := []corev1.Volume{}
		for _, v := range pt.Spec.Volumes {
			if v.Name != vname {
				vols = append(vols, v)
			}
		}
		vols = append(vols, corev1.Volume{Name: vname, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: vname + "-box"},
		}})
		pt.Spec.Volumes = vols
		byName := map[string]corev1.Volume{}
		for _, v := range pt.Spec.Volumes {
			byName[v.Name] = v
		}
		if len(byName) != 2 || byName[helperVolumeName].EmptyDir == nil {
			t.Errorf("%s: volumes %+v", u.GetKind(), pt.Spec.Volumes)
		}
		var rootMount string
		for _, m := range pt.Spec.Containers[0].VolumeMounts {
			if m.MountPath == s.Root {
				rootMount = m.Name
			}
		}
		if byName[rootMount].PersistentVolumeClaim == nil {
			t.Errorf("%s: the root %s is mounted from %+v, not the claim", u.GetKind(), s.Root, byName[rootMount])
		}
	}
}

// The optional fields are set as given: times in UTC to the second,
// policies, suspension, the template's network policy management, the
// claim's pool and pod metadata, the pool's replicas and template.
func TestAgentSandboxObjectFields(t *testing.T) {
	s := representativeSpecs()["egress"]
	get := func(u *unstructured.Unstructured, path ...string) any {
		v, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
		return v
	}
	sb, err := s.Sandbox("box", testDigest, SandboxOptions{ShutdownTime: shutdownAt, ShutdownPolicy: ShutdownRetain, Suspended: true})
	if err != nil {
		t.Fatal(err)
	}
	if get(sb, "spec", "shutdownTime") != "2030-01-02T02:04:05Z" || get(sb, "spec", "shutdownPolicy") != "Retain" ||
		get(sb, "spec", "operatingMode") != "Suspended" || get(sb, "spec", "volumeClaimTemplates") != nil {
		t.Errorf("Sandbox spec %v", sb.Object["spec"])
	}
	tpl, _ := s.SandboxTemplate("tpl", testDigest, TemplateOptions{})
	if get(tpl, "spec", "networkPolicyManagement") != "Unmanaged" || tpl.GetNamespace() != s.Namespace {
		t.Errorf("SandboxTemplate %v", tpl.Object)
	}
	cl, _ := SandboxClaim("agents", "c", "pool", ClaimOptions{ShutdownTime: shutdownAt, PodAnnotations: map[string]string{"n": "v"}})
	if get(cl, "spec", "warmPoolRef", "name") != "pool" || get(cl, "spec", "lifecycle", "shutdownTime") != "2030-01-02T02:04:05Z" ||
		get(cl, "spec", "lifecycle", "shutdownPolicy") != nil || get(cl, "spec", "additionalPodMetadata", "annotations", "n") != "v" {
		t.Errorf("SandboxClaim spec %v", cl.Object["spec"])
	}
	pool := SandboxWarmPool("agents", "p", "tpl", 2, nil)
	if get(pool, "spec", "replicas") != int64(2) || get(pool, "spec", "sandboxTemplateRef", "name") != "tpl" {
		t.Errorf("SandboxWarmPool spec %v", pool.Object["spec"])
	}

	for _, tc := range []struct {
		err  error
		want string
	}{
		{func() error {
			_, err := s.Sandbox("b", testDigest, SandboxOptions{ShutdownPolicy: "DeleteForeground"})
			return err
		}(), "must be Delete or Retain"},
		{func() error {
			_, err := SandboxClaim("a", "c", "p", ClaimOptions{ShutdownPolicy: "delete"})
			return err
		}(), "Delete, DeleteForeground or Retain"},
		{func() error {
			_, err := s.Sandbox("b", testDigest, SandboxOptions{Root: &RootVolume{Size: "0"}})
			return err
		}(), "more than zero"},
		{func() error {
			_, err := s.SandboxTemplate("t", testDigest, TemplateOptions{Root: &RootVolume{Size: "big"}})
			return err
		}(), "not a Kubernetes quantity"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, tc.err)
		}
	}
}
