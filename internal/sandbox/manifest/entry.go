package manifest

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// Entry is one node of a manifest's entry tree, the Python SDK's BaseEntry
// subclasses (design/sdk-model.md §2): the common fields, the type's own fields in the
// Python SDK's order with defaults filled in (Fields), and, for a "dir", its
// children in their JSON order. Build one with ParseEntry or NewEntry.
type Entry struct {
	Type        string
	Description *string
	Ephemeral   bool
	// Group is the entry's group: nil, a User shape ({"name"}) or a Group
	// shape ({"name", "users"}) when IsGroup is set.
	Group       *EntryGroup
	IsDir       bool
	Permissions posix.Permissions
	// Fields holds the type's own fields (children excepted), in order.
	Fields   *orderedObject
	Children Entries
}

// EntryGroup is the value of an entry's group field: the Python SDK accepts a
// User ({"name"}) or a Group ({"name", "users"}).
type EntryGroup struct {
	Name    string
	Users   []sandbox.User
	IsGroup bool
}

// entryTypeFields are the own fields of the non-mount entry types
// (design/sdk-model.md §2.2–2.6), in the Python SDK's order; "dir" children are handled apart.
var entryTypeFields = map[string][]fieldSpec{
	"file":       {reqStr("content")},
	"dir":        {},
	"local_file": {reqStr("src")},
	"local_dir":  {optStr("src")},
	"git_repo":   {defStr("host", "github.com"), reqStr("repo"), reqStr("ref"), optStr("subpath")},
}

func ownFields(t string) []fieldSpec {
	if f, ok := entryTypeFields[t]; ok {
		return f
	}
	return append(append([]fieldSpec(nil), mountCommonFields...), mountProviders[t].fields...)
}

// Field returns the value of one of the type's own fields: a string, bool,
// int64, nil, or a nested value; ok is false for a field the type lacks.
func (e *Entry) Field(name string) (any, bool) {
	if e.Fields == nil {
		return nil, false
	}
	v, ok := e.Fields.vals[name]
	return v, ok
}

// StringField returns a string field's value; ok is false when the field
// is missing or null.
func (e *Entry) StringField(name string) (string, bool) {
	v, _ := e.Field(name)
	s, ok := v.(string)
	return s, ok
}

func parseEntryMapping(v any, loc []string) (Entries, error) {
	if v == nil {
		return Entries{}, nil
	}
	obj, ok := v.(*orderedObject)
	if !ok {
		return nil, seedError("Artifact mapping must be a mapping, got " + pyTypeName(v))
	}
	out := make(Entries, 0, len(obj.keys))
	for _, k := range obj.keys {
		e, err := parseEntry(obj.vals[k], loc)
		if err != nil {
			return nil, err
		}
		out = append(out, KeyedEntry{Key: k, Entry: e})
	}
	return out, nil
}

// parseEntry follows the Python SDK's BaseEntry.parse and the entry model's
// validation (design/sdk-model.md §2.1): the type tag picks the model; omitted fields take
// their defaults; unknown keys are ignored; the directory permission flag
// is forced for directory-like entries and mount permissions are reset to
// rwxr-xr-x (the Python SDK warns that they are not enforced).
func parseEntry(v any, loc []string) (*Entry, error) {
	obj, ok := v.(*orderedObject)
	if !ok {
		return nil, seedError("Artifact entry must be a BaseEntry or mapping, got " + pyTypeName(v))
	}
	t, ok := obj.get("type").(string)
	if !ok {
		return nil, valueError(loc, "Artifact entry mapping must include a string `type` field")
	}
	kind, ok := entryTypeKinds[t]
	if !ok {
		return nil, valueError(loc, "Unknown artifact type `"+t+"`. Registered types: "+strings.Join(RegisteredEntryTypes(), ", "))
	}
	e := &Entry{Type: t, Ephemeral: kind == kindMount, IsDir: kind != kindPlain, Permissions: posix.DefaultPermissions()}
	common := []fieldSpec{optStr("description"), defBool("ephemeral", e.Ephemeral), defBool("is_dir", e.IsDir)}
	vals, err := parseFields(obj, common, loc, nil)
	if err != nil {
		return nil, err
	}
	if d, ok := vals.get("description").(string); ok {
		e.Description = &d
	}
	e.Ephemeral, _ = vals.get("ephemeral").(bool)
	e.IsDir, _ = vals.get("is_dir").(bool)
	if e.Group, err = parseEntryGroup(obj.get("group"), append(loc, "group")); err != nil {
		return nil, err
	}
	if raw, present := obj.vals["permissions"]; present {
		if e.Permissions, err = parsePermissionsValue(raw, append(loc, "permissions")); err != nil {
			return nil, err
		}
	}
	if kind != kindPlain {
		e.Permissions.Directory = true
	}
	if kind == kindMount {
		e.Permissions.Owner, e.Permissions.Group, e.Permissions.Other = 7, 5, 5
	}
	if e.Fields, err = parseFields(obj, ownFields(t), loc, &fieldCtx{mountType: t}); err != nil {
		return nil, err
	}
	if t == "dir" {
		if e.Children, err = parseEntryMapping(obj.get("children"), append(loc, "children")); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func parseEntryGroup(raw any, loc []string) (*EntryGroup, error) {
	if raw == nil {
		return nil, nil
	}
	obj, ok := raw.(*orderedObject)
	if !ok {
		return nil, &Error{Loc: loc, Msg: "Input should be a valid dictionary or instance of Group or User"}
	}
	name, ok := obj.get("name").(string)
	if !ok {
		return nil, fieldError(loc, "name", "Field required")
	}
	g := &EntryGroup{Name: name}
	if rawUsers, present := obj.vals["users"]; present {
		users, err := parseUsers(rawUsers, append(loc, "users"))
		if err != nil {
			return nil, err
		}
		g.Users, g.IsGroup = users, true
	}
	return g, nil
}

func parseUsers(raw any, loc []string) ([]sandbox.User, error) {
	arr, ok := raw.([]any)
	if !ok {
		return nil, &Error{Loc: loc, Msg: "Input should be a valid list"}
	}
	out := make([]sandbox.User, 0, len(arr))
	for _, u := range arr {
		obj, ok := u.(*orderedObject)
		if !ok {
			return nil, &Error{Loc: loc, Msg: "Input should be a valid dictionary or instance of User"}
		}
		name, ok := obj.get("name").(string)
		if !ok {
			return nil, fieldError(loc, "name", "Field required")
		}
		out = append(out, sandbox.User{Name: name})
	}
	return out, nil
}

// parsePermissionsValue reads a Permissions mapping; omitted keys take the
// model's defaults (owner 7, group 0, other 0, directory false, design/sdk-model.md §1.3).
func parsePermissionsValue(raw any, loc []string) (posix.Permissions, error) {
	obj, ok := raw.(*orderedObject)
	if !ok {
		return posix.Permissions{}, &Error{Loc: loc, Msg: "Input should be a valid dictionary or instance of Permissions"}
	}
	vals, err := parseFields(obj, []fieldSpec{defInt("owner", 7), defInt("group", 0), defInt("other", 0),
		defBool("directory", false)}, loc, nil)
	if err != nil {
		return posix.Permissions{}, err
	}
	return posix.Permissions{
		Owner: int(vals.num("owner")), Group: int(vals.num("group")),
		Other: int(vals.num("other")), Directory: vals.flag("directory"),
	}, nil
}

// object renders the entry as the Python SDK's model_dump(mode='json') does: the
// common fields (type, description, ephemeral, group, is_dir, permissions),
// then the type's own fields, nulls included; Dir children last.
func (e *Entry) object() *orderedObject {
	o := newObject().set("type", e.Type)
	if e.Description != nil {
		o.set("description", *e.Description)
	} else {
		o.set("description", nil)
	}
	o.set("ephemeral", e.Ephemeral)
	if e.Group != nil {
		g := newObject().set("name", e.Group.Name)
		if e.Group.IsGroup {
			g.set("users", usersValue(e.Group.Users))
		}
		o.set("group", g)
	} else {
		o.set("group", nil)
	}
	o.set("is_dir", e.IsDir)
	p := e.Permissions
	o.set("permissions", newObject().set("owner", p.Owner).set("group", p.Group).set("other", p.Other).set("directory", p.Directory))
	if e.Fields != nil {
		for _, k := range e.Fields.keys {
			o.set(k, e.Fields.vals[k])
		}
	}
	if e.Type == "dir" {
		o.set("children", e.Children.object())
	}
	return o
}

func (es Entries) object() *orderedObject {
	o := newObject()
	for _, ke := range es {
		o.set(ke.Key, ke.Entry.object())
	}
	return o
}

func usersValue(users []sandbox.User) []any {
	out := make([]any, 0, len(users))
	for _, u := range users {
		out = append(out, newObject().set("name", u.Name))
	}
	return out
}

// JSON returns the entry as compact Python SDK JSON (model_dump_json). File
// content that is not valid UTF-8 gives ErrNotUTF8, as the Python SDK fails.
func (e *Entry) JSON() ([]byte, error) { return encodeCompact(e.object()) }

// ParseEntry reads one entry from its Python SDK JSON form, with the Python SDK's
// errors (see DecodeEntries); locations start at "entries".
func ParseEntry(data []byte) (*Entry, error) {
	v, err := decodeOrderedJSON(data)
	if err != nil {
		return nil, err
	}
	return parseEntry(v, []string{"entries"})
}

// EntryCommon holds the common entry fields a caller sets (design/sdk-model.md §2.1).
type EntryCommon struct {
	Description *string
	Ephemeral   bool
	// Group is a group name ("" for none), rendered in the User shape.
	Group       string
	Permissions posix.Permissions
}

// NewEntry builds an entry of type t from the common fields and the type's
// own fields (own: field name to string, bool, int64 or nil), validated
// and defaulted exactly as a parsed entry.
func NewEntry(t string, c EntryCommon, own map[string]any) (*Entry, error) {
	obj := newObject().set("type", t)
	if c.Description != nil {
		obj.set("description", *c.Description)
	}
	obj.set("ephemeral", c.Ephemeral)
	if c.Group != "" {
		obj.set("group", newObject().set("name", c.Group))
	}
	p := c.Permissions
	obj.set("permissions", newObject().set("owner", jsonInt(p.Owner)).set("group", jsonInt(p.Group)).
		set("other", jsonInt(p.Other)).set("directory", p.Directory))
	for _, k := range sortedKeys(own) {
		obj.set(k, own[k])
	}
	e, err := parseEntry(obj, []string{"entries"})
	if err != nil {
		return nil, err
	}
	if e.Type == "dir" && e.Children == nil {
		e.Children = Entries{}
	}
	return e, nil
}

func jsonInt(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// OmitField sets one of the type's own fields to null in the entry's JSON
// form, for values that must not be rendered (secret file content).
func (e *Entry) OmitField(name string) {
	if e.Fields != nil && e.Fields.vals != nil {
		if _, ok := e.Fields.vals[name]; ok {
			e.Fields.vals[name] = nil
		}
	}
}
