package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// validateWorkspace runs the workspace's ValidateConfig on a docker
// workspace with the given root ("" for unset) and volumes (volume name,
// path pairs), as Terraform would at plan time.
func validateWorkspace(t *testing.T, root string, vols ...[2]string) diag.Diagnostics {
	t.Helper()
	ctx := context.Background()
	r := NewWorkspaceResource()
	var sr resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &sr)
	objT := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
	nulls := func(o tftypes.Object) map[string]tftypes.Value {
		m := map[string]tftypes.Value{}
		for k, at := range o.AttributeTypes {
			m[k] = tftypes.NewValue(at, nil)
		}
		return m
	}
	dockerT := objT.AttributeTypes["docker"].(tftypes.Object)
	listT := dockerT.AttributeTypes["volumes"].(tftypes.List)
	elemT := listT.ElementType.(tftypes.Object)
	var elems []tftypes.Value
	for _, v := range vols {
		e := nulls(elemT)
		e["volume_name"] = tftypes.NewValue(tftypes.String, v[0])
		e["path"] = tftypes.NewValue(tftypes.String, v[1])
		elems = append(elems, tftypes.NewValue(elemT, e))
	}
	docker := nulls(dockerT)
	docker["image"] = tftypes.NewValue(tftypes.String, "busybox")
	docker["volumes"] = tftypes.NewValue(listT, elems)
	ws := nulls(objT)
	ws["docker"] = tftypes.NewValue(dockerT, docker)
	if root != "" {
		ws["root"] = tftypes.NewValue(tftypes.String, root)
	}
	var resp resource.ValidateConfigResponse
	r.(resource.ResourceWithValidateConfig).ValidateConfig(ctx, resource.ValidateConfigRequest{
		Config: tfsdk.Config{Raw: tftypes.NewValue(objT, ws), Schema: sr.Schema},
	}, &resp)
	return resp.Diagnostics
}

// Each refusal is on the path of the volume at fault.
func TestWorkspaceVolumes_errorOnPath(t *testing.T) {
	volPath := func(i int) path.Path { return path.Root("docker").AtName("volumes").AtListIndex(i).AtName("path") }
	for name, c := range map[string]struct {
		root string
		vols [][2]string
		at   path.Path // empty: valid
	}{
		"valid":             {"", [][2]string{{"a", "data"}, {"b", "/mnt/b"}, {"c", "data/sub"}}, path.Path{}},
		"duplicate":         {"", [][2]string{{"a", "data"}, {"b", "/mnt/b"}, {"c", "/workspace/data/"}}, volPath(2)},
		"root":              {"", [][2]string{{"a", "data"}, {"b", "/workspace"}}, volPath(1)},
		"dot":               {"", [][2]string{{"a", "."}}, volPath(0)},
		"contains the root": {"/srv/ws", [][2]string{{"a", "/srv"}}, volPath(0)},
		"custom root":       {"/srv/ws", [][2]string{{"a", "/workspace"}, {"b", "data"}}, path.Path{}},
	} {
		t.Run(name, func(t *testing.T) {
			diags := validateWorkspace(t, c.root, c.vols...)
			if c.at.Equal(path.Path{}) {
				if diags.HasError() {
					t.Fatalf("unexpected errors: %v", diags)
				}
				return
			}
			if len(diags) != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			d, ok := diags[0].(diag.DiagnosticWithPath)
			if !ok || !d.Path().Equal(c.at) {
				t.Fatalf("error %q on %v, want it on %s", diags[0].Detail(), diags[0], c.at)
			}
		})
	}
}
