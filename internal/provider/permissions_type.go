package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// PermissionsType is the string type of every `permissions` attribute. It
// accepts the Python SDK's ls-style strings ("drwxr-x---", "-rw-r--r--", with
// the Python SDK's from_str rules and messages) and octal strings ("0750",
// "750"), and validates them wherever the value is known. Two values are
// semantically equal when their permission bits are, so "0750" and
// "drwxr-x---" never cause a diff.
type PermissionsType struct {
	basetypes.StringType
}

var _ basetypes.StringTypable = PermissionsType{}

func (t PermissionsType) String() string { return "PermissionsType" }

func (t PermissionsType) Equal(o attr.Type) bool {
	_, ok := o.(PermissionsType)
	return ok
}

func (t PermissionsType) ValueType(context.Context) attr.Value { return PermissionsValue{} }

func (t PermissionsType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return PermissionsValue{StringValue: in}, nil
}

func (t PermissionsType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return PermissionsValue{StringValue: s}, nil
}

// PermissionsValue is a value of PermissionsType.
type PermissionsValue struct {
	basetypes.StringValue
}

var (
	_ basetypes.StringValuableWithSemanticEquals = PermissionsValue{}
	_ xattr.ValidateableAttribute                = PermissionsValue{}
)

// ValidateAttribute reports an unparseable permissions string at its
// attribute path, at validate and plan time.
func (v PermissionsValue) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if _, err := posix.ParsePermissions(v.ValueString()); err != nil {
		detail := err.Error()
		if !strings.Contains(detail, "octal") {
			detail += "\n\nUse an octal string such as \"0750\" or an ls -l string such as \"drwxr-x---\"."
		}
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid permissions", detail)
	}
}

func (v PermissionsValue) Type(context.Context) attr.Type { return PermissionsType{} }

func (v PermissionsValue) Equal(o attr.Value) bool {
	other, ok := o.(PermissionsValue)
	return ok && v.StringValue.Equal(other.StringValue)
}

// StringSemanticEquals compares the permission bits of two values.
func (v PermissionsValue) StringSemanticEquals(_ context.Context, n basetypes.StringValuable) (bool, diag.Diagnostics) {
	nv, ok := n.(PermissionsValue)
	if !ok {
		return false, nil
	}
	return posix.PermissionsEqualString(v.ValueString(), nv.ValueString()), nil
}

// Permissions parses the value; callers use it only on validated values.
func (v PermissionsValue) Permissions() (posix.Permissions, error) {
	return posix.ParsePermissions(v.ValueString())
}

// NewPermissionsValue returns a known PermissionsValue.
func NewPermissionsValue(s string) PermissionsValue {
	return PermissionsValue{StringValue: basetypes.NewStringValue(s)}
}
