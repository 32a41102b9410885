package conformance

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// seedVector is one entry of the seed vector file: the Python SDK's observed
// behaviour for one input.
type seedVector struct {
	Area     string          `json:"area"`
	Case     string          `json:"case"`
	Input    json.RawMessage `json:"input"`
	Expected json.RawMessage `json:"expected"`
	Source   string          `json:"source"`
}

// unsupportedError marks a vector the engine cannot express (yet).
type unsupportedError struct{ reason string }

func (u *unsupportedError) Error() string { return "unsupported: " + u.reason }

func unsupported(format string, args ...any) error {
	return &unsupportedError{reason: fmt.Sprintf(format, args...)}
}

// partialResult is a handler result that covers only some of the members
// of an expected JSON object: Got holds the engine's values; Skipped names
// each member the engine cannot produce, with the reason, which is logged.
// Every member the vector expects must be in one of the two.
type partialResult struct {
	Got     map[string]any
	Err     error // the engine's error, compared with an expected error
	Skipped map[string]string
	// Narrowed replaces expected members by the part of them the engine
	// produces (Value, taken from the vector by the handler), with the reason.
	Narrowed map[string]narrowed
}

type narrowed struct {
	Value any
	Why   string
}

// project returns Got and the expected object without the skipped members.
func (p partialResult) project(t *testing.T, expected any) (any, any) {
	t.Helper()
	exp, ok := expected.(map[string]any)
	if !ok {
		t.Fatalf("a partial result needs an expected object, got %s", jsonText(expected))
	}
	rest := map[string]any{}
	for k, v := range exp {
		if why, skip := p.Skipped[k]; skip {
			t.Logf("not compared: %s: %s", k, why)
			continue
		}
		if n, ok := p.Narrowed[k]; ok {
			t.Logf("compared in part: %s: %s", k, n.Why)
			v = n.Value
		}
		rest[k] = v
	}
	return p.Got, rest
}

// vectorHandler runs the engine for one vector's input and returns a
// JSON-shaped result, or the engine's error, or an *unsupportedError.
type vectorHandler func(input json.RawMessage, expected any) (any, error)

var vectorHandlers = map[string]vectorHandler{
	"permissions":    handlePermissionsVector,
	"url_for":        handleURLForVector,
	"workspace_path": handleWorkspacePathVector,
	"manifest_paths": handleManifestPathsVector,
	"errors":         handleErrorsVector,
	"git_repo":       handleGitRepoVector,
	"snapshot":       handleSnapshotVector,
}

// caseHandlers are handlers that also need the vector's case name.
var caseHandlers = map[string]func(caseName string, input json.RawMessage, expected any) (any, error){
	"manifest_json":             handleManifestPayloadVector,
	"mount_path":                mvMountPath,
	"mount_rclone_config":       mvRcloneConfig,
	"mount_commands":            mvMountCommands,
	"docker_volume_driver":      mvDockerVolume,
	"redaction":                 handleMountRedactionVector,
	"mount_credential_boundary": handleMountBoundaryVector,
	"remote_mount_policy":       handleRemoteMountPolicyVector,
	"backend_docker":            handleDockerBackendVector,
	"backend_unix_local":        handleUnixLocalBackendVector,
	"manifest_application":      handleManifestApplicationVector,
}

// seedVectorFiles returns the vector files to run: the copy kept in
// testdata (so a fresh clone tests on its own), then every file named in
// SANDBOX_SEED_VECTORS (a list separated like PATH), such as a newer master
// copy or vectors of another implementation in the same format.
func seedVectorFiles() []string {
	files := []string{filepath.Join("testdata", "seed-vectors.json")}
	for _, p := range filepath.SplitList(os.Getenv("SANDBOX_SEED_VECTORS")) {
		if p != "" {
			files = append(files, p)
		}
	}
	return files
}

func TestSeedVectors(t *testing.T) {
	for _, path := range seedVectorFiles() {
		t.Run(filepath.Base(path), func(t *testing.T) { runSeedVectorFile(t, path) })
	}
}

func runSeedVectorFile(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read the seed vectors at %s: %v", path, err)
	}
	var vectors []seedVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatalf("cannot decode the seed vectors at %s: %v", path, err)
	}
	var passed, failed, unsup int
	var unsupportedLines []string
	for _, v := range vectors {
		v := v
		var isUnsupported bool
		var why string
		ok := t.Run(v.Area+"/"+v.Case, func(t *testing.T) {
			runVector(t, v, func(reason string) { isUnsupported, why = true, reason })
		})
		switch {
		case isUnsupported:
			unsup++
			unsupportedLines = append(unsupportedLines, fmt.Sprintf("unsupported %s/%s: %s", v.Area, v.Case, why))
		case ok:
			passed++
		default:
			failed++
		}
	}
	for _, l := range unsupportedLines {
		fmt.Println(l)
	}
	fmt.Printf("seed vectors (%s): %d passed, %d failed, %d unsupported\n", path, passed, failed, unsup)
	if failed > 0 {
		t.Errorf("%d seed vectors failed", failed)
	}
}

// runVector runs one vector as a subtest body: it fails t on a mismatch;
// for an unsupported vector it calls unsupportedBy with the reason and
// skips t.
func runVector(t *testing.T, v seedVector, unsupportedBy func(reason string)) {
	var expected any
	if err := json.Unmarshal(v.Expected, &expected); err != nil {
		t.Fatalf("bad expected value: %v", err)
	}
	h := vectorHandlers[v.Area]
	if ch := caseHandlers[v.Area]; ch != nil {
		caseName := v.Case
		h = func(in json.RawMessage, exp any) (any, error) { return ch(caseName, in, exp) }
	}
	if h == nil {
		why := fmt.Sprintf("area %q has no handler", v.Area)
		unsupportedBy(why)
		t.Skip(why)
	}
	got, err := h(v.Input, expected)
	var u *unsupportedError
	if errors.As(err, &u) {
		unsupportedBy(u.reason)
		t.Skip(u.reason)
	}
	if p, ok := got.(partialResult); ok && err == nil {
		got, expected = p.project(t, expected)
		err = p.Err
	}
	if ej, ok := got.(exactJSON); ok && err == nil {
		want, werr := canonicalExpected(v.Expected)
		if werr != nil {
			t.Fatalf("bad expected value: %v", werr)
		}
		if string(ej) != string(want) {
			t.Fatalf("JSON mismatch (byte for byte, key order included)\n got: %s\nwant: %s", ej, want)
		}
		return
	}
	compareVectorResult(t, expected, got, err)
}

// compareVectorResult compares an engine result with a vector's expected
// value: an expected object with an "error" key describes an error.
func compareVectorResult(t *testing.T, expected, got any, err error) {
	t.Helper()
	if exp, ok := expected.(map[string]any); ok {
		if _, isErr := exp["error"]; isErr {
			compareVectorError(t, exp, err)
			return
		}
	}
	if err != nil {
		t.Fatalf("unexpected error: %v\nwant: %s", err, jsonText(expected))
	}
	if g := jsonNormalize(t, got); !reflect.DeepEqual(g, expected) {
		t.Fatalf("result mismatch\n got: %s\nwant: %s", jsonText(g), jsonText(expected))
	}
}

// plainErrorKinds are the Python SDK's exception classes that are not structured
// sandbox errors.
var plainErrorKinds = map[string]bool{"ValueError": true, "TypeError": true, "ValidationError": true}

func compareVectorError(t *testing.T, exp map[string]any, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected error %s, got success", jsonText(exp))
	}
	kind, _ := exp["error"].(string)
	msg := err.Error()
	var manErr *manifest.Error
	if errors.As(err, &manErr) {
		msg = manErr.Msg
		if loc, ok := exp["loc"].([]any); ok && fmt.Sprint(loc) != fmt.Sprint(manErr.Loc) {
			t.Errorf("loc: got %v, want %v", manErr.Loc, loc)
		}
	}
	var backendGrantErr *spec.GrantError
	if errors.As(err, &backendGrantErr) {
		// The provider's refusals of grants add a hint after the Python
		// SDK's message: the SDK's message must be a prefix.
		if want, ok := exp["message"].(string); ok && strings.HasPrefix(msg, want) && len(msg) > len(want) &&
			strings.ContainsAny(msg[len(want):len(want)+1], " ;(") {
			t.Logf("message %q has a hint after the Python SDK's %q", msg, want)
			msg = want
		}
		if loc, ok := exp["loc"].([]any); ok && len(loc) > 0 && loc[0] != backendGrantErr.Field {
			t.Errorf("loc: got %q, want %v", backendGrantErr.Field, loc)
		}
	}
	var grantErr *posix.GrantError
	if errors.As(err, &grantErr) {
		msg = "Value error, " + grantErr.Message
		if loc, ok := exp["loc"].([]any); ok && len(loc) > 0 && loc[0] != grantErr.Field {
			t.Errorf("loc: got %q, want %v", grantErr.Field, loc)
		}
	}
	if want, ok := exp["message"]; ok && want != msg {
		t.Errorf("message:\n got: %q\nwant: %q", msg, want)
	}
	var se *sandbox.Error
	if !errors.As(err, &se) {
		if !plainErrorKinds[kind] {
			t.Errorf("got a plain error %q, want a structured %s", msg, kind)
		}
		return
	}
	if plainErrorKinds[kind] {
		t.Errorf("got structured error %s, want a plain %s", se.Code, kind)
	}
	if want, ok := exp["error_code"]; ok && want != se.Code {
		t.Errorf("error_code: got %q, want %v", se.Code, want)
	}
	if want, ok := exp["reason"]; ok && want != se.Reason() {
		t.Errorf("reason: got %q, want %v", se.Reason(), want)
	}
	if wantCtx, ok := exp["context"].(map[string]any); ok {
		gotCtx, _ := jsonNormalize(t, se.Context).(map[string]any)
		for k, want := range wantCtx {
			if !reflect.DeepEqual(gotCtx[k], want) {
				t.Errorf("context[%q]: got %s, want %s", k, jsonText(gotCtx[k]), jsonText(want))
			}
		}
	}
}

// errorView renders the fields of a structured error that a vector names.
func errorView(e *sandbox.Error, keys []string) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range keys {
		switch k {
		case "message":
			out[k] = e.Message
		case "code", "error_code":
			out[k] = e.Code
		case "op":
			out[k] = e.Op
		case "context":
			out[k] = e.Context
		case "reason":
			out[k] = e.Reason()
		case "retryable":
			if e.Retryable == nil {
				out[k] = nil
			} else {
				out[k] = *e.Retryable
			}
		default:
			v, ok := e.Context[k]
			if !ok {
				return nil, unsupported("error field %q is not known", k)
			}
			out[k] = v
		}
	}
	return out, nil
}

func jsonNormalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("cannot encode %#v: %v", v, err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("cannot decode %s: %v", b, err)
	}
	return out
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func mapKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// pyPathArg turns a vector's path text into the raw string the engine
// receives: PureWindowsPath('x') becomes x with backslash separators (what
// str() of that object gives, and what the Python SDK's Windows checks see);
// PurePosixPath('x') becomes x.
func pyPathArg(s string) string {
	if inner, ok := cutWrapper(s, "PureWindowsPath('"); ok {
		return strings.ReplaceAll(inner, "/", `\`)
	}
	if inner, ok := cutWrapper(s, "PurePosixPath('"); ok {
		return inner
	}
	return s
}

func cutWrapper(s, prefix string) (string, bool) {
	if strings.HasPrefix(s, prefix) && strings.HasSuffix(s, "')") {
		return s[len(prefix) : len(s)-2], true
	}
	return "", false
}
