package manifest

import (
	"errors"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// DefaultRoot is the Python SDK's default Manifest.root.
const DefaultRoot = "/workspace"

// DefaultRemoteMountCommandAllowlist is the Python SDK's default
// Manifest.remote_mount_command_allowlist, in its order (design/sdk-model.md §3.1).
var DefaultRemoteMountCommandAllowlist = []string{"ls", "find", "stat", "cat", "less", "head", "tail", "du", "grep",
	"rg", "wc", "sort", "cut", "cp", "tee", "echo", "mkdir", "rm"}

// Manifest is the Python SDK's workspace Manifest (design/sdk-model.md §3.1) in its JSON form.
// The zero value is not valid; start from New or Parse.
type Manifest struct {
	Root                        string
	Entries                     Entries
	Environment                 []EnvVar
	Users                       []sandbox.User
	Groups                      []sandbox.Group
	ExtraPathGrants             []posix.PathGrant
	RemoteMountCommandAllowlist []string
}

// EnvVar is one member of a manifest's environment, in order.
type EnvVar struct {
	Name  string
	Value EnvValue
}

// EnvValue is an environment value (design/sdk-model.md §3.1): a plain string (Plain
// set), a typed value {"type": Type, "value": Value}, or an entry wrapping
// a typed value with a description and an ephemeral flag (IsEntry).
type EnvValue struct {
	Plain       *string
	Type        string
	Value       string
	IsEntry     bool
	Description *string
	Ephemeral   bool
}

// New returns the Python SDK's default Manifest(): version 1, root
// "/workspace", no entries, and the default command allowlist.
func New() *Manifest {
	return &Manifest{Root: DefaultRoot, Entries: Entries{},
		RemoteMountCommandAllowlist: append([]string(nil), DefaultRemoteMountCommandAllowlist...)}
}

// credentialAckKeys are the top-level keys the Python SDK refuses in manifest
// input (design/sdk-model.md §3.1, §5.8).
var credentialAckKeys = func() map[string]bool {
	out := map[string]bool{}
	for _, k := range []string{"in_container_mount_credential_exposure_allowed_paths",
		"in_container_mount_credential_exposure_acknowledged_paths",
		"in_container_mount_broad_credential_exposure_acknowledged_paths", "mount_credential_exposure_policy"} {
		out[k], out["_"+k], out[camelCase(k)] = true, true, true
	}
	return out
}()

func camelCase(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// MsgCredentialAckInInput is the Python SDK's TypeError for credential
// acknowledgement keys in manifest input.
const MsgCredentialAckInInput = "In-container mount credential exposure must be configured on a trusted Manifest instance, not in manifest input."

// Parse reads a manifest as the Python SDK's Manifest.model_validate
// does (design/sdk-model.md §3.1, §7): every key is optional; unknown top-level keys are
// ignored except credential acknowledgement keys (TypeError message
// MsgCredentialAckInInput); version must be 1 ("Input should be 1").
// Entries keep their JSON order. Errors are *Error (pydantic
// validation errors with their location), *sandbox.Error (MountConfigError) or
// plain errors carrying a Python SDK TypeError message. Entry paths are not
// checked here: see Entries.ValidatedEntries.
func Parse(data []byte) (*Manifest, error) {
	v, err := decodeOrderedJSON(data)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(*orderedObject)
	if !ok {
		return nil, &Error{Msg: "Input should be a valid dictionary or instance of Manifest"}
	}
	for _, k := range obj.keys {
		if credentialAckKeys[k] {
			return nil, seedError(MsgCredentialAckInInput)
		}
	}
	m := New()
	if raw, present := obj.vals["version"]; present {
		_, isBool := raw.(bool)
		if n, msg := laxInt(raw); isBool || msg != "" || n != 1 {
			return nil, &Error{Loc: []string{"version"}, Msg: "Input should be 1"}
		}
	}
	if raw, present := obj.vals["root"]; present {
		s, ok := raw.(string)
		if !ok {
			return nil, &Error{Loc: []string{"root"}, Msg: "Input should be a valid string"}
		}
		m.Root = s
	}
	if m.Entries, err = parseEntryMapping(obj.get("entries"), []string{"entries"}); err != nil {
		return nil, err
	}
	if raw, present := obj.vals["environment"]; present {
		if m.Environment, err = parseEnvironment(raw); err != nil {
			return nil, err
		}
	}
	if raw, present := obj.vals["users"]; present {
		if m.Users, err = parseUsers(raw, []string{"users"}); err != nil {
			return nil, err
		}
	}
	if raw, present := obj.vals["groups"]; present {
		if m.Groups, err = parseGroups(raw); err != nil {
			return nil, err
		}
	}
	if raw, present := obj.vals["extra_path_grants"]; present {
		if m.ExtraPathGrants, err = parseGrants(raw); err != nil {
			return nil, err
		}
	}
	if raw, present := obj.vals["remote_mount_command_allowlist"]; present {
		list, err := parseField(strList("remote_mount_command_allowlist"), raw, true, nil, nil)
		if err != nil {
			return nil, err
		}
		m.RemoteMountCommandAllowlist = m.RemoteMountCommandAllowlist[:0]
		items, _ := list.([]any) // strList parses to a list of strings
		for _, item := range items {
			if s, ok := item.(string); ok {
				m.RemoteMountCommandAllowlist = append(m.RemoteMountCommandAllowlist, s)
			}
		}
	}
	return m, nil
}

func parseGroups(raw any) ([]sandbox.Group, error) {
	loc := []string{"groups"}
	arr, ok := raw.([]any)
	if !ok {
		return nil, &Error{Loc: loc, Msg: "Input should be a valid list"}
	}
	out := make([]sandbox.Group, 0, len(arr))
	for _, g := range arr {
		eg, err := parseEntryGroup(g, loc)
		if err != nil {
			return nil, err
		}
		if !eg.IsGroup {
			return nil, fieldError(loc, "users", "Field required")
		}
		out = append(out, sandbox.Group{Name: eg.Name, Users: eg.Users})
	}
	return out, nil
}

func parseGrants(raw any) ([]posix.PathGrant, error) {
	loc := []string{"extra_path_grants"}
	arr, ok := raw.([]any)
	if !ok {
		return nil, &Error{Loc: loc, Msg: "Input should be a valid list"}
	}
	specs := []fieldSpec{reqStr("path"), defBool("read_only", false), optStr("description"), optStr("host_path")}
	out := make([]posix.PathGrant, 0, len(arr))
	for _, g := range arr {
		obj, ok := g.(*orderedObject)
		if !ok {
			return nil, &Error{Loc: loc, Msg: "Input should be a valid dictionary or instance of SandboxPathGrant"}
		}
		vals, err := parseFields(obj, specs, loc, nil)
		if err != nil {
			return nil, err
		}
		grant, err := posix.NewPathGrant(vals.str("path"), vals.flag("read_only"),
			stringOrNil(vals.get("description")), stringOrNil(vals.get("host_path")))
		if err != nil {
			var field string
			var ge *posix.GrantError
			if errors.As(err, &ge) {
				field = ge.Field
			}
			return nil, valueError(append(loc, field), err.Error())
		}
		out = append(out, grant)
	}
	return out, nil
}

func stringOrNil(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

// object renders the manifest as the Python SDK's model_dump(mode='json').
func (m *Manifest) object() *orderedObject {
	env := newObject()
	for _, ev := range m.Environment {
		env.set(ev.Name, ev.Value.object())
	}
	groups := make([]any, 0, len(m.Groups))
	for _, g := range m.Groups {
		groups = append(groups, newObject().set("name", g.Name).set("users", usersValue(g.Users)))
	}
	grants := make([]any, 0, len(m.ExtraPathGrants))
	for _, g := range m.ExtraPathGrants {
		o := newObject().set("path", g.Path).set("read_only", g.ReadOnly).set("description", nilOr(g.Description))
		if g.HostPath != nil {
			o.set("host_path", *g.HostPath)
		}
		grants = append(grants, o)
	}
	allow := make([]any, 0, len(m.RemoteMountCommandAllowlist))
	for _, s := range m.RemoteMountCommandAllowlist {
		allow = append(allow, s)
	}
	return newObject().set("version", 1).set("root", m.Root).set("entries", m.Entries.object()).
		set("environment", newObject().set("value", env)).set("users", usersValue(m.Users)).
		set("groups", groups).set("extra_path_grants", grants).set("remote_mount_command_allowlist", allow)
}

func nilOr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// JSON returns the manifest as compact Python SDK JSON, byte for byte what the
// Python SDK's Manifest.model_dump_json() writes: keys in field order, nulls
// included, non-ASCII text unescaped. The same manifest always gives the
// same bytes.
func (m *Manifest) JSON() ([]byte, error) { return encodeCompact(m.object()) }

// IndentedJSON is JSON re-indented with two spaces per level, the layout
// of json.dumps(manifest.model_dump(mode='json'), indent=2,
// ensure_ascii=False).
func (m *Manifest) IndentedJSON() ([]byte, error) {
	b, err := m.JSON()
	if err != nil {
		return nil, err
	}
	return indentJSON(b)
}
