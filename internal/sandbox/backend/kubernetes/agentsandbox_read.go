package kubernetes

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Readers of the agent-sandbox objects a cluster returns. What they read
// is untrusted: a missing field reads as its zero value, a field of the
// wrong type is an error naming it; they never panic.

// Condition is one condition of an object's status; a zero Status means
// the object does not have it.
type Condition struct {
	Status, Reason, Message string
}

// True reports whether the condition is there with status True.
func (c Condition) True() bool { return c.Status == "True" }

// SandboxState is what a Sandbox says of itself.
type SandboxState struct {
	// PodName is the name of its pod: the Sandbox's own, unless
	// AnnotationSandboxPodName names another.
	PodName string
	// Ready is its Ready condition: True when the pod runs and is ready.
	Ready Condition
	// OperatingMode is its spec.operatingMode ("" when unset: Running).
	OperatingMode string
	// Suspended is true when its Suspended condition is True: the pod of a
	// suspended Sandbox is gone. (The condition may stay after a resume:
	// it says nothing once OperatingMode is Running again.)
	Suspended bool
	// ShutdownTime is its spec.shutdownTime (zero when unset).
	ShutdownTime time.Time
	// Root and Expiry are what its pod template's annotations record
	// (AnnotationRoot, the expiry annotations).
	Root   string
	Expiry sandbox.Expiry
}

// ReadSandbox reads a Sandbox.
func ReadSandbox(u *unstructured.Unstructured) (SandboxState, error) {
	var st SandboxState
	if u == nil {
		return st, errors.New("no Sandbox")
	}
	var err error
	name := str(u.Object, &err, "metadata", "name")
	podName := str(u.Object, &err, "metadata", "annotations", AnnotationSandboxPodName)
	st.PodName = name
	if podName != "" {
		st.PodName = podName
	}
	st.OperatingMode = str(u.Object, &err, "spec", "operatingMode")
	st.Root = str(u.Object, &err, "spec", "podTemplate", "metadata", "annotations", AnnotationRoot)
	st.Expiry = expiryOf(stringMapAt(u.Object, &err, "spec", "podTemplate", "metadata", "annotations"))
	if t := str(u.Object, &err, "spec", "shutdownTime"); t != "" && err == nil {
		st.ShutdownTime, err = parseTime("spec.shutdownTime", t)
	}
	if err != nil {
		return SandboxState{}, fmt.Errorf("reading Sandbox %s: %w", name, err)
	}
	conds, err := conditions(u.Object)
	if err != nil {
		return SandboxState{}, fmt.Errorf("reading Sandbox %s: %w", name, err)
	}
	st.Ready, st.Suspended = conds["Ready"], conds["Suspended"].True()
	return st, nil
}

// ClaimState is what a SandboxClaim says of itself.
type ClaimState struct {
	// SandboxName is the Sandbox it got (status.sandbox.name, else
	// AnnotationClaimSandboxName); "" while it has none.
	SandboxName string
	// Ready is its Ready condition, the Sandbox's, or why it has none
	// (WarmPoolNotFound, TemplateNotFound, ClaimExpired, ...).
	Ready Condition
	// Expiry is what the annotations it adds to its pod record.
	Expiry sandbox.Expiry
}

// ReadSandboxClaim reads a SandboxClaim.
func ReadSandboxClaim(u *unstructured.Unstructured) (ClaimState, error) {
	var st ClaimState
	if u == nil {
		return st, errors.New("no SandboxClaim")
	}
	var err error
	name := str(u.Object, &err, "metadata", "name")
	st.SandboxName = str(u.Object, &err, "status", "sandbox", "name")
	if st.SandboxName == "" {
		st.SandboxName = str(u.Object, &err, "metadata", "annotations", AnnotationClaimSandboxName)
	}
	st.Expiry = expiryOf(stringMapAt(u.Object, &err, "spec", "additionalPodMetadata", "annotations"))
	if err != nil {
		return ClaimState{}, fmt.Errorf("reading SandboxClaim %s: %w", name, err)
	}
	conds, err := conditions(u.Object)
	if err != nil {
		return ClaimState{}, fmt.Errorf("reading SandboxClaim %s: %w", name, err)
	}
	st.Ready = conds["Ready"]
	return st, nil
}

// WarmPoolState is what a SandboxWarmPool says of itself.
type WarmPoolState struct {
	// Replicas counts its Sandboxes, ReadyReplicas those that are Ready.
	Replicas, ReadyReplicas int64
}

// ReadSandboxWarmPool reads a SandboxWarmPool.
func ReadSandboxWarmPool(u *unstructured.Unstructured) (WarmPoolState, error) {
	if u == nil {
		return WarmPoolState{}, errors.New("no SandboxWarmPool")
	}
	var err error
	name := str(u.Object, &err, "metadata", "name")
	st := WarmPoolState{
		Replicas:      integer(u.Object, &err, "status", "replicas"),
		ReadyReplicas: integer(u.Object, &err, "status", "readyReplicas"),
	}
	if err != nil {
		return WarmPoolState{}, fmt.Errorf("reading SandboxWarmPool %s: %w", name, err)
	}
	return st, nil
}

// strings3 is the map of strings at path (nil when missing); a value of
// another type sets *errp, unless it is set already.
func stringMapAt(obj map[string]any, errp *error, path ...string) map[string]string {
	m, found, err := unstructured.NestedStringMap(obj, path...)
	if err != nil && *errp == nil {
		*errp = fmt.Errorf("%s: %w", strings.Join(path, "."), err)
	}
	if !found || err != nil {
		return nil
	}
	return m
}

// str is the string at path ("" when missing); a value of another type
// sets *errp, unless it is set already.
func str(obj map[string]any, errp *error, path ...string) string {
	v, found, err := unstructured.NestedFieldNoCopy(obj, path...)
	if err != nil || !found || v == nil {
		if err != nil && *errp == nil {
			*errp = fmt.Errorf("%s: %w", strings.Join(path, "."), err)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok && *errp == nil {
		*errp = fmt.Errorf("%s is a %T, not a string", strings.Join(path, "."), v)
	}
	return s
}

// integer is the whole number at path (0 when missing), as a JSON decoder
// may give it: an integer or an integral float.
func integer(obj map[string]any, errp *error, path ...string) int64 {
	v, found, err := unstructured.NestedFieldNoCopy(obj, path...)
	if err != nil || !found || v == nil {
		if err != nil && *errp == nil {
			*errp = fmt.Errorf("%s: %w", strings.Join(path, "."), err)
		}
		return 0
	}
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case int:
		return int64(n)
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n)
		}
	}
	if *errp == nil {
		*errp = fmt.Errorf("%s is %v (%T), not a whole number", strings.Join(path, "."), v, v)
	}
	return 0
}

// conditions reads status.conditions by type; the first of a type wins.
func conditions(obj map[string]any) (map[string]Condition, error) {
	out := map[string]Condition{}
	v, found, err := unstructured.NestedFieldNoCopy(obj, "status", "conditions")
	if err != nil {
		return nil, fmt.Errorf("status.conditions: %w", err)
	}
	if !found || v == nil {
		return out, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("status.conditions is a %T, not a list", v)
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("status.conditions[%d] is a %T, not an object", i, e)
		}
		var err error
		typ := str(m, &err, "type")
		c := Condition{Status: str(m, &err, "status"), Reason: str(m, &err, "reason"), Message: str(m, &err, "message")}
		if err != nil {
			return nil, fmt.Errorf("status.conditions[%d].%w", i, err)
		}
		if _, dup := out[typ]; !dup && typ != "" {
			out[typ] = c
		}
	}
	return out, nil
}

func parseTime(field, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q is not an RFC 3339 time", field, s)
	}
	return t, nil
}
