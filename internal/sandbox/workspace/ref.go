package workspace

import (
	"fmt"
	"regexp"
	"strings"
)

// A workspace id names the workspace's kind and says where to find it, so
// that the id alone (what Terraform state holds and what every entry's
// workspace_id carries) reaches the workspace from any working directory,
// machine or provider process:
//
//	local:<uuid>:<root>   a host directory; <root> is absolute and clean and
//	                      must carry the marker of <uuid> (local.MarkerAttr)
//	docker:<uuid>         the container labelled sandbox.workspace_id=<uuid>
//	                      on the Docker daemon the provider is configured for
//	kubernetes:<uuid>:<namespace>
//	                      the pod sandbox-<uuid> in <namespace> on the
//	                      cluster the provider is configured for
//
// <uuid> is new on every creation. A bare <uuid> is the form ids had before
// they said where the workspace is; it is still read (see legacy.go).

// Ref is a parsed workspace id.
type Ref struct {
	// Kind is "local" or "docker"; "" for a legacy bare UUID.
	Kind string
	// UUID identifies this incarnation of the workspace.
	UUID string
	// Root is the host directory of a local workspace.
	Root string
	// Namespace is the namespace of a kubernetes workspace's pod, or of
	// an agent_sandbox workspace's object.
	Namespace string
	// Object is what an agent_sandbox workspace is: AgentObjectSandbox or
	// AgentObjectClaim.
	Object string
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ValidUUID reports whether s has the shape of a workspace UUID (lower
// case).
func ValidUUID(s string) bool { return uuidPattern.MatchString(s) }

// String returns the id.
func (r Ref) String() string {
	switch {
	case r.Kind == "":
		return r.UUID
	case r.Object != "":
		return r.Kind + ":" + r.Object + ":" + r.UUID + ":" + r.Namespace
	case r.Root != "":
		return r.Kind + ":" + r.UUID + ":" + r.Root
	case r.Namespace != "":
		return r.Kind + ":" + r.UUID + ":" + r.Namespace
	}
	return r.Kind + ":" + r.UUID
}

// idHelp is appended to id parse errors.
const idHelp = "use the id attribute of a sandbox_workspace or data.sandbox_workspace, such as " +
	"\"docker:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11\" or \"local:0b6f3c2e-6a41-4c9e-9d1a-3f0e2b7c5d11:/srv/sandboxes/a\""

// ParseID parses a workspace id. It only looks at the string.
func ParseID(id string) (Ref, error) {
	if ValidUUID(id) {
		return Ref{UUID: id}, nil
	}
	kind, rest, ok := strings.Cut(id, ":")
	if !ok {
		return Ref{}, fmt.Errorf("%q is not a workspace id: %s", id, idHelp)
	}
	form, ok := kindForms[kind]
	if !ok {
		return Ref{}, fmt.Errorf("%q is not a workspace id: unknown kind %q; %s", id, kind, idHelp)
	}
	return form.parse(id, rest)
}

// ValidID reports whether id parses as a workspace id.
func ValidID(id string) bool {
	_, err := ParseID(id)
	return err == nil
}

// SplitEntryID splits an entry id "<workspace_id>/<path>" at the end of
// the workspace id: after its UUID, or where its kind says (a local root
// may itself hold slashes).
func SplitEntryID(id string) (wsID, rel string, err error) {
	kind, rest, _ := strings.Cut(id, ":")
	if form, ok := kindForms[kind]; ok && form.splitEntry != nil {
		wsRest, rel, err := form.splitEntry(id, rest)
		return kind + ":" + wsRest, rel, err
	}
	ws, rel, ok := strings.Cut(id, "/")
	if !ok || rel == "" {
		return "", "", fmt.Errorf("%q has no /<path> after the workspace id", id)
	}
	return ws, rel, nil
}
