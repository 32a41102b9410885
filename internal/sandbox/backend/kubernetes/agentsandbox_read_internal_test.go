package kubernetes

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func decoded(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// A Sandbox reads back its pod's name, Ready condition, operating mode,
// suspension and shutdown time, as the controller writes them; a field
// that is missing reads as zero.
func TestReadSandbox(t *testing.T) {
	st, err := ReadSandbox(decoded(t, `{"metadata":{"name":"box"},
		"spec":{"operatingMode":"Suspended","shutdownTime":"2030-01-02T02:04:05Z"},
		"status":{"conditions":[
			{"type":"Suspended","status":"True","reason":"PodTerminated"},
			{"type":"Ready","status":"False","reason":"SandboxSuspended","message":"suspended"},
			{"type":"Ready","status":"True"}]}}`))
	want := SandboxState{
		PodName: "box", Ready: Condition{Status: "False", Reason: "SandboxSuspended", Message: "suspended"},
		OperatingMode: "Suspended", Suspended: true, ShutdownTime: time.Date(2030, 1, 2, 2, 4, 5, 0, time.UTC),
	}
	if err != nil || st != want {
		t.Fatalf("got %+v %v, want %+v", st, err, want)
	}
	st, err = ReadSandbox(decoded(t, `{"metadata":{"name":"box","annotations":{"agents.x-k8s.io/pod-name":"old-pod"}},
		"status":{"conditions":[{"type":"Ready","status":"True","reason":"DependenciesReady"}]}}`))
	if err != nil || st.PodName != "old-pod" || !st.Ready.True() || st.Suspended || !st.ShutdownTime.IsZero() || st.OperatingMode != "" {
		t.Fatalf("adopted Sandbox: %+v %v", st, err)
	}
	if st, err := ReadSandbox(decoded(t, `{}`)); err != nil || st != (SandboxState{}) {
		t.Fatalf("empty Sandbox: %+v %v", st, err)
	}
}

// A SandboxClaim reads back the Sandbox it got, from its status or else
// its annotation, and its Ready condition.
func TestReadSandboxClaim(t *testing.T) {
	st, err := ReadSandboxClaim(decoded(t, `{"metadata":{"name":"c","annotations":{"agents.x-k8s.io/sandbox-name":"pool-old"}},
		"status":{"sandbox":{"name":"pool-abcde","podIPs":["10.0.0.1"]},
		"conditions":[{"type":"Ready","status":"True","reason":"DependenciesReady"}]}}`))
	if err != nil || st.SandboxName != "pool-abcde" || st.Ready != (Condition{Status: "True", Reason: "DependenciesReady"}) {
		t.Fatalf("bound claim: %+v %v", st, err)
	}
	st, err = ReadSandboxClaim(decoded(t, `{"metadata":{"name":"c","annotations":{"agents.x-k8s.io/sandbox-name":"pool-abcde"}}}`))
	if err != nil || st.SandboxName != "pool-abcde" || st.Ready.Status != "" {
		t.Fatalf("claim adopted before its status: %+v %v", st, err)
	}
	st, err = ReadSandboxClaim(decoded(t, `{"metadata":{"name":"c"},
		"status":{"conditions":[{"type":"Ready","status":"False","reason":"WarmPoolNotFound"}]}}`))
	if err != nil || st.SandboxName != "" || st.Ready.Reason != "WarmPoolNotFound" {
		t.Fatalf("unbound claim: %+v %v", st, err)
	}
}

// A SandboxWarmPool reads back its replicas, as a JSON decoder gives them
// (floats) or as a dynamic client does (int64).
func TestReadSandboxWarmPool(t *testing.T) {
	st, err := ReadSandboxWarmPool(decoded(t, `{"metadata":{"name":"p"},"status":{"replicas":3,"readyReplicas":2}}`))
	if err != nil || st != (WarmPoolState{Replicas: 3, ReadyReplicas: 2}) {
		t.Fatalf("%+v %v", st, err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"replicas": int64(1)}}}
	if st, err := ReadSandboxWarmPool(u); err != nil || st != (WarmPoolState{Replicas: 1}) {
		t.Fatalf("%+v %v", st, err)
	}
}

// What the cluster returns is not trusted: a field of the wrong type is
// an error naming it, never a panic, and the state read is zero.
func TestAgentSandboxReadersRefuseWrongTypes(t *testing.T) {
	for _, tc := range []struct {
		read func(*unstructured.Unstructured) error
		obj  string
		want string
	}{
		{readSandbox, `{"metadata":"box"}`, "metadata.name"},
		{readSandbox, `{"metadata":{"name":7}}`, "metadata.name is a float64"},
		{readSandbox, `{"metadata":{"annotations":{"agents.x-k8s.io/pod-name":true}}}`, "pod-name is a bool"},
		{readSandbox, `{"spec":{"operatingMode":["Running"]}}`, "spec.operatingMode"},
		{readSandbox, `{"spec":{"shutdownTime":"tomorrow"}}`, "not an RFC 3339 time"},
		{readSandbox, `{"spec":{"shutdownTime":1}}`, "spec.shutdownTime is a float64"},
		{readSandbox, `{"status":{"conditions":{"type":"Ready"}}}`, "status.conditions is a map"},
		{readSandbox, `{"status":{"conditions":["Ready"]}}`, "status.conditions[0] is a string"},
		{readSandbox, `{"status":{"conditions":[{"type":"Ready","status":true}]}}`, "status.conditions[0].status is a bool"},
		{readSandbox, `{"status":[]}`, "status.conditions"},
		{readClaim, `{"status":{"sandbox":"box"}}`, "status.sandbox.name"},
		{readClaim, `{"metadata":{"annotations":{"agents.x-k8s.io/sandbox-name":1}}}`, "sandbox-name is a float64"},
		{readClaim, `{"status":{"conditions":[{"type":1}]}}`, "status.conditions[0].type"},
		{readPool, `{"status":{"replicas":"3"}}`, "status.replicas is 3 (string)"},
		{readPool, `{"status":{"readyReplicas":1.5}}`, "status.readyReplicas is 1.5"},
		{readPool, `{"status":7}`, "status.replicas"},
	} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", tc.obj, r)
				}
			}()
			err = tc.read(decoded(t, tc.obj))
		}()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want %q, got %v", tc.obj, tc.want, err)
		}
	}
	for _, read := range []func(*unstructured.Unstructured) error{readSandbox, readClaim, readPool} {
		if err := read(nil); err == nil {
			t.Error("nil object read")
		}
		if err := read(&unstructured.Unstructured{}); err != nil {
			t.Errorf("object without fields: %v", err)
		}
	}
}

func readSandbox(u *unstructured.Unstructured) error {
	st, err := ReadSandbox(u)
	if err != nil && st != (SandboxState{}) {
		return nil // a state with an error fails the caller's check
	}
	return err
}

func readClaim(u *unstructured.Unstructured) error {
	st, err := ReadSandboxClaim(u)
	if err != nil && st != (ClaimState{}) {
		return nil
	}
	return err
}

func readPool(u *unstructured.Unstructured) error {
	st, err := ReadSandboxWarmPool(u)
	if err != nil && st != (WarmPoolState{}) {
		return nil
	}
	return err
}
