package provider

import (
	"encoding/base64"
	"errors"
	"unicode/utf8"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// manifestEntryAttribute is the computed manifest_entry of an entry
// resource; shape describes what the resource renders as.
func manifestEntryAttribute(shape string) schema.StringAttribute {
	return schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: manifestEntryDescription(shape),
	}
}

// sensitiveManifestEntryAttribute is manifestEntryAttribute marked
// sensitive, for entries that carry content: the provider never learns
// whether the configuration marked that content sensitive, so it is always
// treated as if it had.
func sensitiveManifestEntryAttribute(shape string) schema.StringAttribute {
	a := manifestEntryAttribute(shape)
	a.Sensitive = true
	a.MarkdownDescription += sensitiveManifestEntryNote
	return a
}

// errNoManifestEntry marks an entry that has no Python SDK JSON form.
var errNoManifestEntry = errors.New("no Python SDK JSON form")

// manifestEntry renders the common fields of m plus own as Python SDK JSON for
// entry type typ. The value is unknown when an input is unknown, and null
// when errNoManifestEntry is returned by own.
func (m entryModel) manifestEntry(typ string, own func() (map[string]any, []string, error)) (types.String, error) {
	if m.Permissions.IsUnknown() || m.Group.IsUnknown() || m.Description.IsUnknown() || m.Ephemeral.IsUnknown() {
		return types.StringUnknown(), nil
	}
	fields, omit, err := own()
	if errors.Is(err, errNoManifestEntry) {
		return types.StringNull(), nil
	}
	if err != nil {
		return types.StringUnknown(), err
	}
	if fields == nil {
		return types.StringUnknown(), nil
	}
	perms := posix.DefaultPermissions()
	if !m.Permissions.IsNull() {
		if perms, err = m.Permissions.Permissions(); err != nil {
			return types.StringUnknown(), err
		}
	}
	c := manifest.EntryCommon{Ephemeral: m.Ephemeral.ValueBool(), Group: m.Group.ValueString(), Permissions: perms}
	if !m.Description.IsNull() {
		d := m.Description.ValueString()
		c.Description = &d
	}
	e, err := manifest.NewEntry(typ, c, fields)
	if err != nil {
		return types.StringUnknown(), err
	}
	for _, f := range omit {
		e.OmitField(f)
	}
	b, err := e.JSON()
	if err != nil {
		return types.StringUnknown(), err
	}
	return types.StringValue(string(b)), nil
}

// setManifestEntry sets m.ManifestEntry for a directory resource.
func (m *entryModel) setDirManifestEntry() error {
	v, err := m.manifestEntry("dir", func() (map[string]any, []string, error) { return map[string]any{}, nil, nil })
	m.ManifestEntry = v
	return err
}

// setManifestEntry sets m.ManifestEntry for a sandbox_local_dir: type
// local_dir with src; null with keep_source_permissions, since the Python
// SDK would write the files 0644.
func (m *localDirModel) setManifestEntry() error {
	v, err := m.manifestEntry("local_dir", func() (map[string]any, []string, error) {
		if m.Source.IsUnknown() || m.KeepSourcePermissions.IsUnknown() {
			return nil, nil, nil
		}
		if m.KeepSourcePermissions.ValueBool() {
			return nil, nil, errNoManifestEntry
		}
		return map[string]any{"src": m.Source.ValueString()}, nil, nil
	})
	m.ManifestEntry = v
	return err
}

// setManifestEntry sets m.ManifestEntry for a sandbox_file: type file with
// its content (UTF-8 text; content_wo renders content null; binary
// content_base64 that is not UTF-8 gives a null manifest_entry, because
// the Python SDK cannot dump it either), or local_file with src for a source.
// woSet tells whether content_wo is configured.
func (m *fileModel) setManifestEntry(woSet bool) error {
	typ := "file"
	if !m.Source.IsNull() {
		typ = "local_file"
	}
	v, err := m.manifestEntry(typ, func() (map[string]any, []string, error) {
		switch {
		case !m.Source.IsNull():
			if m.Source.IsUnknown() {
				return nil, nil, nil
			}
			return map[string]any{"src": m.Source.ValueString()}, nil, nil
		case !m.Content.IsNull():
			if m.Content.IsUnknown() {
				return nil, nil, nil
			}
			return map[string]any{"content": m.Content.ValueString()}, nil, nil
		case !m.ContentBase64.IsNull():
			if m.ContentBase64.IsUnknown() {
				return nil, nil, nil
			}
			b, err := base64.StdEncoding.DecodeString(m.ContentBase64.ValueString())
			if err != nil || !utf8.Valid(b) {
				return nil, nil, errNoManifestEntry
			}
			return map[string]any{"content": string(b)}, nil, nil
		case woSet:
			return map[string]any{"content": ""}, []string{"content"}, nil
		}
		return nil, nil, errNoManifestEntry
	})
	m.ManifestEntry = v
	return err
}
