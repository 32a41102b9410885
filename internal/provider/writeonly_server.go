package provider

import (
	"context"
	"sync"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// NewProtocol6Server serves the provider with the write-only values of
// every resource configuration it is given (validate, plan, apply)
// remembered for the secret gate of snapshots and exports
// (redact.NoteWriteOnly). The values are never logged or stored.
func NewProtocol6Server(version string) func() (tfprotov6.ProviderServer, error) {
	inner := providerserver.NewProtocol6WithError(New(version)())
	return func() (tfprotov6.ProviderServer, error) {
		s, err := inner()
		if err != nil {
			return nil, err
		}
		return &writeOnlyNoter{ProviderServer: s}, nil
	}
}

// ServeProtocol6 is NewProtocol6Server for tf6server.Serve.
func ServeProtocol6(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		s, _ := NewProtocol6Server(version)() // the framework's constructor never fails
		return s
	}
}

// writeOnlyNoter passes every call through, noting the write-only values
// of resource configurations on the way.
type writeOnlyNoter struct {
	tfprotov6.ProviderServer
	once    sync.Once
	schemas map[string]*tfprotov6.Schema
}

func (s *writeOnlyNoter) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	s.note(ctx, req.TypeName, req.Config)
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *writeOnlyNoter) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	s.note(ctx, req.TypeName, req.Config)
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

func (s *writeOnlyNoter) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	s.note(ctx, req.TypeName, req.Config)
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// note remembers the known string values below every write-only attribute
// of cfg. A configuration that cannot be read is left to the framework,
// which reports it.
func (s *writeOnlyNoter) note(ctx context.Context, typeName string, cfg *tfprotov6.DynamicValue) {
	s.once.Do(func() {
		resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err == nil && resp != nil {
			s.schemas = resp.ResourceSchemas
		}
	})
	sch := s.schemas[typeName]
	if sch == nil || sch.Block == nil || cfg == nil {
		return
	}
	v, err := cfg.Unmarshal(sch.ValueType())
	if err != nil {
		return
	}
	noteBlock(typeName, sch.Block, v)
}

func noteBlock(prefix string, b *tfprotov6.SchemaBlock, v tftypes.Value) {
	for _, obj := range objectsIn(v) {
		for _, a := range b.Attributes {
			av, ok := obj[a.Name]
			switch {
			case !ok:
			case a.WriteOnly:
				noteStrings(prefix+"."+a.Name, av)
			case a.NestedType != nil:
				noteBlock(prefix+"."+a.Name, &tfprotov6.SchemaBlock{Attributes: a.NestedType.Attributes}, av)
			}
		}
		for _, nb := range b.BlockTypes {
			if bv, ok := obj[nb.TypeName]; ok && nb.Block != nil {
				noteBlock(prefix+"."+nb.TypeName, nb.Block, bv)
			}
		}
	}
}

// objectsIn is v as an object, or the objects of a list, set or map of
// them.
func objectsIn(v tftypes.Value) []map[string]tftypes.Value {
	if !v.IsKnown() || v.IsNull() {
		return nil
	}
	if v.Type().Is(tftypes.Object{}) {
		var obj map[string]tftypes.Value
		if v.As(&obj) != nil {
			return nil
		}
		return []map[string]tftypes.Value{obj}
	}
	var out []map[string]tftypes.Value
	for _, e := range elementsOf(v) {
		out = append(out, objectsIn(e)...)
	}
	return out
}

func elementsOf(v tftypes.Value) []tftypes.Value {
	var list []tftypes.Value
	if v.As(&list) == nil {
		return list
	}
	var m map[string]tftypes.Value
	if v.As(&m) == nil {
		for _, e := range m {
			list = append(list, e)
		}
	}
	return list
}

// noteStrings remembers every known string in v (a string, or a
// collection of them).
func noteStrings(attr string, v tftypes.Value) {
	if !v.IsKnown() || v.IsNull() {
		return
	}
	var str string
	if v.As(&str) == nil {
		redact.NoteWriteOnly(attr, str)
		return
	}
	for _, e := range elementsOf(v) {
		noteStrings(attr, e)
	}
}
