package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// maxAttrDescription is the longest attribute description allowed: a
// description is read where the attribute is typed, so it says shape, unit,
// default and errors; the long story belongs on the resource's page.
const maxAttrDescription = 400

// schemaDescription is one description as Terraform receives it.
type schemaDescription struct {
	where string // e.g. resource sandbox_file: permissions
	text  string
	// page is true for the description of a whole resource, data source or
	// function, which is its page's text and has no length limit.
	page bool
}

// providerDescriptions returns the description of every attribute, nested
// ones included, of the provider, its resources, data sources, ephemeral
// resources and the parameters of its functions, as served over protocol 6
// (what `terraform providers schema -json` shows).
func providerDescriptions(t *testing.T) []schemaDescription {
	t.Helper()
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("GetProviderSchema: %s: %s", d.Summary, d.Detail)
	}
	var out []schemaDescription
	add := func(kind string, schemas map[string]*tfprotov6.Schema) {
		for name, s := range schemas {
			out = append(out, schemaDescription{where: kind + " " + name, text: s.Block.Description, page: true})
			walkBlock(kind+" "+name+": ", s.Block, &out)
		}
	}
	walkBlock("provider: ", resp.Provider.Block, &out)
	add("resource", resp.ResourceSchemas)
	add("data source", resp.DataSourceSchemas)
	add("ephemeral resource", resp.EphemeralResourceSchemas)
	for name, f := range resp.Functions {
		out = append(out, schemaDescription{where: "function " + name, text: f.Summary + " " + f.Description, page: true})
		params := f.Parameters
		if f.VariadicParameter != nil {
			params = append(params, f.VariadicParameter)
		}
		for _, p := range params {
			out = append(out, schemaDescription{where: "function " + name + ": " + p.Name, text: p.Description})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].where < out[j].where })
	return out
}

func walkBlock(prefix string, b *tfprotov6.SchemaBlock, out *[]schemaDescription) {
	if b == nil {
		return
	}
	for _, a := range b.Attributes {
		walkAttribute(prefix+a.Name, a, out)
	}
	for _, nb := range b.BlockTypes {
		*out = append(*out, schemaDescription{where: prefix + nb.TypeName, text: nb.Block.Description})
		walkBlock(prefix+nb.TypeName+".", nb.Block, out)
	}
}

func walkAttribute(where string, a *tfprotov6.SchemaAttribute, out *[]schemaDescription) {
	*out = append(*out, schemaDescription{where: where, text: a.Description})
	if a.NestedType == nil {
		return
	}
	for _, na := range a.NestedType.Attributes {
		walkAttribute(where+"."+na.Name, na, out)
	}
}

// descriptionProblems lists the descriptions that are too long or say "the
// seed", and returns the longest attribute description.
func descriptionProblems(descs []schemaDescription) ([]string, schemaDescription) {
	var bad []string
	var longest schemaDescription
	for _, d := range descs {
		if !d.page && len(d.text) > len(longest.text) {
			longest = d
		}
		if !d.page && len(d.text) > maxAttrDescription {
			bad = append(bad, fmt.Sprintf("%s is %d characters (at most %d)", d.where, len(d.text), maxAttrDescription))
		}
		if strings.Contains(strings.ToLower(d.text), "the seed") {
			bad = append(bad, d.where+` says "the seed"; say "the Python SDK"`)
		}
	}
	return bad, longest
}

// TestSchemaDescriptionsShort keeps every attribute description short and in
// the project's words: at most maxAttrDescription characters, and naming the
// Python SDK rather than "the seed" (resource and function descriptions
// too).
func TestSchemaDescriptionsShort(t *testing.T) {
	descs := providerDescriptions(t)
	if len(descs) < 500 {
		t.Fatalf("walked only %d descriptions; the walk misses schemas", len(descs))
	}
	bad, longest := descriptionProblems(descs)
	t.Logf("%d descriptions; longest attribute description %d characters (%s)", len(descs), len(longest.text), longest.where)
	if len(bad) > 0 {
		t.Errorf("%d descriptions to fix:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestSchemaDescriptionProblems proves the check above can fail: a long
// attribute description and "the seed" anywhere are reported, a long page
// description is not.
func TestSchemaDescriptionProblems(t *testing.T) {
	long := strings.Repeat("x", maxAttrDescription+1)
	bad, longest := descriptionProblems([]schemaDescription{
		{where: "resource a: ok", text: strings.Repeat("x", maxAttrDescription)},
		{where: "resource a: long", text: long},
		{where: "resource a", text: long + long, page: true},
		{where: "resource a: seed", text: "As The Seed does."},
		{where: "function f", text: "Follows the seed.", page: true},
	})
	want := []string{
		"resource a: long is 401 characters (at most 400)",
		`resource a: seed says "the seed"; say "the Python SDK"`,
		`function f says "the seed"; say "the Python SDK"`,
	}
	if strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
	if longest.where != "resource a: long" {
		t.Errorf("longest is %q, want the long attribute", longest.where)
	}
}
