package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// mountField is one of a mount type's own fields (design/sdk-model.md §5.4).
type mountField struct {
	// name is the Python SDK's field name. An authority field (secret) is the
	// write-only attribute <name>_wo; any other field is <name>.
	name   string
	secret bool
	// required fields must be set; def is the Python SDK's default of a plain
	// field ("" for null); oneOf restricts a plain field's values.
	required bool
	def      string
	oneOf    []string
	desc     string
	// tfName overrides the attribute name where the Python SDK's name is taken
	// (box_mount's path is box_path: path is the manifest key here).
	tfName string
}

// attr is the Terraform attribute name of the field.
func (f mountField) attr() string {
	if f.tfName != "" {
		return f.tfName
	}
	if f.secret {
		return f.name + "_wo"
	}
	return f.name
}

// mountType describes one mount resource: the Python SDK's mount type, its
// fields, and how its values become an engine mount.
type mountType struct {
	// typ is the Python SDK's type tag ("s3_mount"); the resource is
	// sandbox_<typ>.
	typ string
	// summary opens the resource description.
	summary string
	fields  []mountField
	// extraOptions adds s3_files_mount's extra_options map.
	extraOptions bool
	// build fills the provider part of m from the field values (nil for
	// null), keyed by Python SDK field name, and extra_options.
	build func(m *mount.Mount, v mountValues, extra []mount.Option)
}

// mountValues are a mount's own field values by Python SDK field name; a missing
// or nil value is null.
type mountValues map[string]*string

// str returns the value of a required field ("" when unset).
func (v mountValues) str(name string) string {
	if p := v[name]; p != nil {
		return *p
	}
	return ""
}

// strDefault returns the value or def when null.
func (v mountValues) strDefault(name, def string) string {
	if p := v[name]; p != nil {
		return *p
	}
	return def
}

// field returns the field named name, for error mapping.
func (k mountType) field(name string) (mountField, bool) {
	for _, f := range k.fields {
		if f.name == name {
			return f, true
		}
	}
	return mountField{}, false
}

// fieldAttributes returns the schema attributes of the kind's own fields.
// Every field replaces the mount when changed: a mount is re-made, never
// edited in place.
func (k mountType) fieldAttributes() map[string]schema.Attribute {
	out := map[string]schema.Attribute{}
	for _, f := range k.fields {
		if f.secret {
			out[f.attr()] = schema.StringAttribute{
				Optional: true, WriteOnly: true,
				MarkdownDescription: f.desc + authorityFieldNote(f.name),
			}
			continue
		}
		a := schema.StringAttribute{
			MarkdownDescription: f.desc + " The Python SDK's `" + f.name + "`.",
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			Validators:          []validator.String{noLineBreaks{}},
		}
		switch {
		case f.required:
			a.Required = true
			a.Validators = append(a.Validators, stringvalidator.LengthAtLeast(1))
		case f.def != "":
			a.Optional, a.Computed = true, true
			a.Default = stringdefault.StaticString(f.def)
			a.MarkdownDescription += " Default `\"" + f.def + "\"`."
		default:
			a.Optional = true
		}
		if len(f.oneOf) > 0 {
			a.Validators = append(a.Validators, stringvalidator.OneOf(f.oneOf...))
		}
		a.MarkdownDescription += " Changing it replaces the mount."
		out[f.attr()] = a
	}
	return out
}

// mountTypes lists the six mount resources, filled by their files.
var mountTypes = map[string]mountType{}

func registerMountType(k mountType) mountType {
	mountTypes[k.typ] = k
	return k
}
