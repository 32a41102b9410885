package sandbox

import (
	"errors"
	"strconv"
	"strings"
)

// User is a sandbox account, the Python SDK's User (design/sdk-model.md §1.1). Name is required.
type User struct {
	Name string `json:"name"`
}

// Equal follows the Python SDK: users are equal when their names are equal.
func (u User) Equal(o User) bool { return u.Name == o.Name }

// Group is a sandbox group with its members, the Python SDK's Group (design/sdk-model.md §1.1).
// Both fields are required in the Python SDK's JSON form.
type Group struct {
	Name  string `json:"name"`
	Users []User `json:"users"`
}

// Equal follows the Python SDK: groups are equal when their names are equal; the
// member lists are ignored.
func (g Group) Equal(o Group) bool { return g.Name == o.Name }

// ExecResult is the outcome of one command, the Python SDK's ExecResult
// (design/sdk-model.md §1.4).
type ExecResult struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	// OOMKilled reports that the out-of-memory killer killed a process of
	// the command at the workspace's memory limit.
	OOMKilled bool
}

// OK reports whether the command exited with code 0 (the Python SDK's ok()).
func (r ExecResult) OK() bool { return r.ExitCode == 0 }

// ExposedPortEndpoint is where a workspace port can be reached from the
// host, the Python SDK's ExposedPortEndpoint (design/sdk-model.md §1.5). TLS defaults to false and
// Query to "" as in the Python SDK.
type ExposedPortEndpoint struct {
	Host  string `json:"host"`
	Port  int    `json:"port"`
	TLS   bool   `json:"tls"`
	Query string `json:"query"`
}

// URLFor follows the Python SDK's url_for (design/sdk-model.md §1.5). scheme is compared
// lower-cased and must be "http" or "ws" (else the error "scheme must be
// either 'http' or 'ws'"); TLS turns them into "https"/"wss". The port is
// printed unless it equals the default (443 with TLS, 80 without); a host
// containing ":" that does not start with "[" is bracketed; the path is
// always "/"; one leading "?" is dropped from Query and the rest, if any,
// appended after "?" without escaping.
func (e ExposedPortEndpoint) URLFor(scheme string) (string, error) {
	var prefix string
	switch strings.ToLower(scheme) {
	case "http":
		prefix = "http"
	case "ws":
		prefix = "ws"
	default:
		return "", errors.New("scheme must be either 'http' or 'ws'")
	}
	defaultPort := 80
	if e.TLS {
		prefix += "s"
		defaultPort = 443
	}
	host := e.Host
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString("://")
	b.WriteString(host)
	if e.Port != defaultPort {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Port))
	}
	b.WriteString("/")
	if q := strings.TrimPrefix(e.Query, "?"); q != "" {
		b.WriteString("?")
		b.WriteString(q)
	}
	return b.String(), nil
}
