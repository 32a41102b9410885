package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Every path and permission vector of the conformance suite goes through
// the provider's own validation of sandbox_manifest, data.sandbox_manifest,
// sandbox_dir and sandbox_file (ValidateResourceConfig and
// ValidateDataResourceConfig of the protocol server: schema validators,
// custom types and config validators, what terraform validate and plan
// call first), and every surface must give the same verdict.

const vectorFile = "../sandbox/conformance/testdata/seed-vectors.json"

type seedVector struct {
	Area     string          `json:"area"`
	Case     string          `json:"case"`
	Input    map[string]any  `json:"input"`
	Expected json.RawMessage `json:"expected"`
}

func loadVectors(t *testing.T) []seedVector {
	t.Helper()
	b, err := os.ReadFile(vectorFile)
	if err != nil {
		t.Fatal(err)
	}
	var vs []seedVector
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	return vs
}

// vectorError is the expected error of a vector: its message, "" when the
// vector expects success.
func vectorError(v seedVector) string {
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Expected, &e) != nil || e.Error == "" {
		return ""
	}
	return e.Message
}

// surfaces validates configurations through the provider's protocol server.
type surfaces struct {
	t   *testing.T
	srv tfprotov6.ProviderServer
}

func newSurfaces(t *testing.T) surfaces {
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{}); err != nil {
		t.Fatal(err)
	}
	return surfaces{t: t, srv: srv}
}

// config builds the object value of typ with attrs set and every other
// attribute null.
func (s surfaces) config(typ tftypes.Object, attrs map[string]tftypes.Value) *tfprotov6.DynamicValue {
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
		if v, ok := attrs[name]; ok {
			vals[name] = v
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		s.t.Fatal(err)
	}
	return &dv
}

// errors joins the summary and detail of every error diagnostic ("" when
// there is none).
func diagErrors(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			out = append(out, d.Summary+": "+d.Detail)
		}
	}
	return strings.Join(out, "\n")
}

func (s surfaces) resource(r resource.Resource, name string, attrs map[string]tftypes.Value) string {
	ctx := context.Background()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	resp, err := s.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: name, Config: s.config(typ, attrs)})
	if err != nil {
		s.t.Fatal(err)
	}
	return diagErrors(resp.Diagnostics)
}

func (s surfaces) dataSource(d datasource.DataSource, name string, attrs map[string]tftypes.Value) string {
	ctx := context.Background()
	var sr datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &sr)
	typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	resp, err := s.srv.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: name, Config: s.config(typ, attrs)})
	if err != nil {
		s.t.Fatal(err)
	}
	return diagErrors(resp.Diagnostics)
}

const vectorWorkspace = "docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11"

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// manifestVerdicts runs manifest entries (JSON of the "entries" object)
// through sandbox_manifest and data.sandbox_manifest.
func (s surfaces) manifestVerdicts(entries map[string]json.RawMessage) (res, data string) {
	b, _ := json.Marshal(map[string]any{"entries": entries})
	res = s.resource(NewManifestResource(), "sandbox_manifest", map[string]tftypes.Value{
		"workspace_id": str(vectorWorkspace), "manifest_json": str(string(b)),
	})
	elems := map[string]tftypes.Value{}
	for k, v := range entries {
		elems[k] = str(string(v))
	}
	data = s.dataSource(NewManifestDataSource(), "sandbox_manifest", map[string]tftypes.Value{
		"entries": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, elems),
	})
	return res, data
}

// pathVerdicts runs one path through every surface as a file and as a dir.
func (s surfaces) pathVerdicts(p string) map[string]string {
	file := json.RawMessage(`{"type":"file","content":"x"}`)
	dir := json.RawMessage(`{"type":"dir"}`)
	out := map[string]string{}
	out["sandbox_manifest file"], out["data.sandbox_manifest file"] = s.manifestVerdicts(map[string]json.RawMessage{p: file})
	out["sandbox_manifest dir"], out["data.sandbox_manifest dir"] = s.manifestVerdicts(map[string]json.RawMessage{p: dir})
	out["sandbox_file"] = s.resource(NewFileResource(), "sandbox_file", map[string]tftypes.Value{
		"workspace_id": str(vectorWorkspace), "path": str(p), "content": str("x"),
	})
	out["sandbox_dir"] = s.resource(NewDirResource(), "sandbox_dir", map[string]tftypes.Value{
		"workspace_id": str(vectorWorkspace), "path": str(p),
	})
	out["sandbox_local_dir"] = s.resource(NewLocalDirResource(), "sandbox_local_dir", map[string]tftypes.Value{
		"workspace_id": str(vectorWorkspace), "path": str(p), "source": str("."),
	})
	return out
}

// vectorPaths returns the entry paths the path vectors name: manifest
// keys of the workspace-path vectors (plain strings only; PureWindowsPath
// inputs are the same text as their Windows form elsewhere in the file).
func vectorPaths(vs []seedVector) (paths []string, sdkRefuses map[string]bool) {
	sdkRefuses = map[string]bool{}
	seen := map[string]bool{}
	for _, v := range vs {
		if v.Area != "workspace_path" {
			continue
		}
		for _, k := range []string{"path", "rel"} {
			p, ok := v.Input[k].(string)
			if !ok || strings.HasPrefix(p, "PureWindowsPath(") || v.Input["grants"] != nil {
				continue
			}
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
			if vectorError(v) != "" {
				sdkRefuses[p] = true
			}
		}
	}
	return paths, sdkRefuses
}

func TestPathVectorsOnEverySurface(t *testing.T) {
	vs := loadVectors(t)
	s := newSurfaces(t)
	paths, sdkRefuses := vectorPaths(vs)
	// Beyond the vectors: the limits the filesystem adds.
	paths = append(paths, "", ".", "./a//b", strings.Repeat("n", 255), "d/"+strings.Repeat("n", 256), "a\x00b", "C:/x", `a\b`)
	if len(paths) < 15 {
		t.Fatalf("only %d paths found in %s", len(paths), vectorFile)
	}
	refused := 0
	defer func() { t.Logf("%d paths on 7 surfaces each: %d refused everywhere", len(paths), refused) }()
	for _, p := range paths {
		got := s.pathVerdicts(p)
		// The root is where surfaces differ on purpose: a manifest dir entry
		// there sets the root's mode (as the Python SDK), while no entry
		// resource may own the root; a file is refused everywhere.
		isRoot := p == "" || p == "."
		refusedBy := map[bool][]string{}
		for surface, errText := range got {
			if isRoot && (surface == "sandbox_manifest dir" || surface == "data.sandbox_manifest dir") {
				if errText != "" {
					t.Errorf("%q: %s refused the root: %s", p, surface, errText)
				}
				continue
			}
			refusedBy[errText != ""] = append(refusedBy[errText != ""], surface)
		}
		if len(refusedBy[true]) > 0 && len(refusedBy[false]) > 0 {
			t.Errorf("path %q: refused by %v but accepted by %v:\n%s", p, refusedBy[true], refusedBy[false], got["sandbox_manifest file"]+got["sandbox_file"])
			continue
		}
		if sdkRefuses[p] && len(refusedBy[true]) == 0 {
			t.Errorf("path %q: the Python SDK refuses it, every surface accepted it", p)
		}
		if len(refusedBy[true]) > 0 {
			refused++
			// The same reason on every surface: the manifest's message.
			reason := firstReason(got["sandbox_manifest file"])
			for _, surface := range refusedBy[true] {
				if !strings.Contains(got[surface], reason) {
					t.Errorf("path %q: %s does not give the reason %q:\n%s", p, surface, reason, got[surface])
				}
			}
			for surface, text := range got {
				if strings.ContainsRune(text, 0) {
					t.Errorf("path %q: %s error carries a raw NUL: %q", p, surface, text)
				}
			}
		}
	}
}

// firstReason is the line of a diagnostic that states the rule: the
// Python SDK's message, or this provider's filesystem limit.
func firstReason(diags string) string {
	for _, line := range strings.Split(diags, "\n") {
		for _, marker := range []string{"manifest path must", "contains a NUL byte", "file names are limited", "names the workspace root"} {
			if i := strings.Index(line, marker); i >= 0 {
				return line[i:min(len(line), i+len(marker))]
			}
		}
	}
	return diags
}

func TestManifestPathVectorsOnEverySurface(t *testing.T) {
	s := newSurfaces(t)
	n := 0
	for _, v := range loadVectors(t) {
		if v.Area != "manifest_paths" {
			continue
		}
		n++
		man, _ := v.Input["manifest"].(map[string]any)
		raw, _ := json.Marshal(man["entries"])
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			t.Fatal(err)
		}
		res, data := s.manifestVerdicts(entries)
		want := vectorError(v)
		var paths []string
		_ = json.Unmarshal(v.Expected, &paths)
		switch {
		case want != "":
			for surface, got := range map[string]string{"sandbox_manifest": res, "data.sandbox_manifest": data} {
				if !strings.Contains(got, want) {
					t.Errorf("%s: %s gave %q, want %q", v.Case, surface, got, want)
				}
			}
		case len(paths) == 1 && paths[0] == "." && string(entries[""]) != "":
			// A file at "" is the root: the Python SDK lists it and fails
			// when it writes; every surface refuses it at plan time.
			for surface, got := range map[string]string{"sandbox_manifest": res, "data.sandbox_manifest": data} {
				if !strings.Contains(got, `names the workspace root itself`) {
					t.Errorf("%s: %s gave %q, want the root refused", v.Case, surface, got)
				}
			}
		default:
			if res != "" || data != "" {
				t.Errorf("%s: refused (%s / %s), the Python SDK accepts it", v.Case, res, data)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d manifest_paths vectors", n)
	}
}

func TestPermissionVectorsOnEverySurface(t *testing.T) {
	s := newSurfaces(t)
	n := 0
	for _, v := range loadVectors(t) {
		arg, ok := v.Input["arg"].(string)
		if v.Area != "permissions" || v.Input["fn"] != "Permissions.from_str" || !ok {
			continue
		}
		n++
		want := vectorError(v)
		for _, surface := range []struct {
			name string
			r    resource.Resource
			more map[string]tftypes.Value
		}{
			{"sandbox_dir", NewDirResource(), nil},
			{"sandbox_file", NewFileResource(), map[string]tftypes.Value{"content": str("x")}},
			{"sandbox_local_dir", NewLocalDirResource(), map[string]tftypes.Value{"source": str(".")}},
		} {
			attrs := map[string]tftypes.Value{"workspace_id": str(vectorWorkspace), "path": str("p"), "permissions": str(arg)}
			for k, val := range surface.more {
				attrs[k] = val
			}
			got := s.resource(surface.r, surface.name, attrs)
			switch {
			case want == "" && got != "":
				t.Errorf("%s %q: refused (%s), the Python SDK accepts it", surface.name, arg, got)
			case want != "" && !strings.Contains(got, want):
				t.Errorf("%s %q: gave %q, want %q", surface.name, arg, got, want)
			}
		}
	}
	if n < 13 {
		t.Fatalf("only %d from_str vectors", n)
	}
}

// TestAccPathVectors_plan plans every vector path with the real
// CLI, batched: the paths all surfaces accept in one configuration (a
// sandbox_dir, a sandbox_file and a sandbox_manifest with a file and a dir
// entry per path), which must plan, so the plan-time checks after
// validation (ModifyPlan) accept them too; the refused ones in another,
// whose plan must report every rule.
func TestAccPathVectors_plan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	s := newSurfaces(t)
	paths, _ := vectorPaths(loadVectors(t))
	paths = append(paths, "./a//b", strings.Repeat("n", 255), "", "d/"+strings.Repeat("n", 256), "a\x00b")
	var body, refused strings.Builder
	n := 0
	for _, p := range paths {
		accepted := true
		for _, errText := range s.pathVerdicts(p) {
			accepted = accepted && errText == ""
		}
		out := &body
		if !accepted {
			out = &refused
		}
		n++
		file, _ := json.Marshal(map[string]any{"entries": map[string]any{p: map[string]any{"type": "file", "content": "x"}}})
		dir, _ := json.Marshal(map[string]any{"entries": map[string]any{p: map[string]any{"type": "dir"}}})
		fmt.Fprintf(out, `
resource "sandbox_dir" "d%[1]d" {
  workspace_id = sandbox_workspace.ws.id
  path         = %[2]s
}
resource "sandbox_file" "f%[1]d" {
  workspace_id = sandbox_workspace.ws.id
  path         = %[2]s
  content      = "x"
}
resource "sandbox_manifest" "mf%[1]d" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = %[3]s
}
resource "sandbox_manifest" "md%[1]d" {
  workspace_id  = sandbox_workspace.ws.id
  manifest_json = %[4]s
}
`, n, hclString(p), hclString(string(file)), hclString(string(dir)))
	}
	if strings.Count(body.String(), "sandbox_dir") < 5 || strings.Count(refused.String(), "sandbox_dir") < 10 {
		t.Fatalf("too few vector paths:\n%s\n%s", body.String(), refused.String())
	}
	steps := []tfresource.TestStep{{Config: env.config(body.String()), PlanOnly: true, ExpectNonEmptyPlan: true}}
	// The refused paths in one configuration: the CLI reports each rule.
	for _, reason := range []string{"manifest path must not escape root", "manifest path must be relative",
		"contains a NUL byte", "file names are limited to 255 bytes", "names the workspace root itself"} {
		steps = append(steps, tfresource.TestStep{Config: env.config(refused.String()), PlanOnly: true, ExpectError: errRe(reason)})
	}
	tfresource.Test(t, tfresource.TestCase{
		TerraformVersionChecks:   requireTF111,
		ProtoV6ProviderFactories: protoV6Factories,
		Steps:                    steps,
	})
}
