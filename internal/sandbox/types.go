package sandbox

import (
	"errors"
	"strconv"
	"strings"
)

// User is a sandbox account, the seed's User (SPEC §1.1). Name is required.
type User struct {
	Name string `json:"name"`
}

// Equal follows the seed: users are equal when their names are equal.
func (u User) Equal(o User) bool { return u.Name == o.Name }

// Group is a sandbox group with its members, the seed's Group (SPEC §1.1).
// Both fields are required in the seed's JSON form.
type Group struct {
	Name  string `json:"name"`
	Users []User `json:"users"`
}

// Equal follows the seed: groups are equal when their names are equal; the
// member lists are ignored.
func (g Group) Equal(o Group) bool { return g.Name == o.Name }

// ExecResult is the outcome of one command, the seed's ExecResult
// (SPEC §1.4).
type ExecResult struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// OK reports whether the command exited with code 0 (the seed's ok()).
func (r ExecResult) OK() bool { return r.ExitCode == 0 }

// ExposedPortEndpoint is where a workspace port can be reached from the
// host, the seed's ExposedPortEndpoint (SPEC §1.5). TLS defaults to false and
// Query to "" as in the seed.
type ExposedPortEndpoint struct {
	Host  string `json:"host"`
	Port  int    `json:"port"`
	TLS   bool   `json:"tls"`
	Query string `json:"query"`
}

// URLFor follows the seed's url_for (SPEC §1.5). scheme is compared
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
