package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Program is what the file helper programs into a network namespace: a
// table of its own whose output chain has Default as its policy and one
// rule per entry after the base rules (loopback, replies to connections
// made to the workspace and, with DNS, the resolvers of the namespace's
// /etc/resolv.conf on port 53).
type Program struct {
	Default string  `json:"default"`
	DNS     bool    `json:"dns,omitempty"`
	Entries []Entry `json:"entries"`
}

// Entry is one rule of the table: packets to Prefix (of L4 "tcp", "udp",
// "icmp" or "" for any, to Port or any port when 0) get Verdict. Index,
// Protocol and Host say which policy rule it comes from; they travel in
// the rule's comment, from which Decode rebuilds the policy.
type Entry struct {
	Verdict  string `json:"verdict"`
	Index    int    `json:"index"`
	Protocol string `json:"protocol"`
	L4       string `json:"l4,omitempty"`
	Port     int    `json:"port,omitempty"`
	Prefix   string `json:"prefix"`
	Host     string `json:"host,omitempty"`
}

// Comment is the entry's rule comment (nftables user data, at most 256
// bytes): "<verdict> <index> <protocol> <l4|-> <port> <prefix> [host]".
func (e Entry) Comment() string {
	l4 := e.L4
	if l4 == "" {
		l4 = "-"
	}
	s := strings.Join([]string{e.Verdict, itoa(e.Index), e.Protocol, l4, itoa(e.Port), e.Prefix}, " ")
	if e.Host != "" {
		s += " " + e.Host
	}
	return s
}

// Base rule comments.
const (
	CommentLoopback = "base loopback"
	CommentReplies  = "base replies"
	CommentDNS      = "base dns" // followed by " <address> <l4>"
)

// Compile turns p, with the addresses each host resolved to, into the
// table's program. Deny entries come first.
func Compile(p Policy, resolved map[string][]string) (Program, error) {
	if err := p.Validate(); err != nil {
		return Program{}, err
	}
	prog := Program{Default: p.Default, DNS: p.HasHosts()}
	for _, set := range []struct {
		verdict string
		rules   []Rule
	}{{Deny, p.Deny}, {Allow, p.Allow}} {
		for i, r := range set.rules {
			var prefixes []string
			if r.CIDR != "" {
				pr, _ := ParseCIDR(r.CIDR)
				prefixes = []string{pr.String()}
			} else {
				for _, a := range resolved[r.Host] {
					addr, err := netip.ParseAddr(a)
					if err != nil {
						return Program{}, fmt.Errorf("host %s resolved to %q: not an address", r.Host, a)
					}
					prefixes = append(prefixes, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()).String())
				}
				if len(prefixes) == 0 {
					return Program{}, fmt.Errorf("host %s resolved to no address", r.Host)
				}
			}
			for _, pre := range prefixes {
				prog.Entries = append(prog.Entries, entries(set.verdict, i, r, pre)...)
			}
		}
	}
	if len(prog.Entries) > MaxNftRules {
		return Program{}, fmt.Errorf("the policy makes %d rules: at most %d", len(prog.Entries), MaxNftRules)
	}
	return prog, nil
}

func entries(verdict string, i int, r Rule, prefix string) []Entry {
	pr := proto(r.Protocol)
	l4s := []string{pr}
	switch {
	case pr == ProtoAny && len(r.Ports) > 0:
		l4s = []string{ProtoTCP, ProtoUDP}
	case pr == ProtoAny:
		l4s = []string{""}
	}
	ports := r.Ports
	if len(ports) == 0 {
		ports = []int{0}
	}
	var out []Entry
	for _, port := range ports {
		for _, l4 := range l4s {
			out = append(out, Entry{Verdict: verdict, Index: i, Protocol: pr, L4: l4, Port: port, Prefix: prefix, Host: r.Host})
		}
	}
	return out
}

// Observed is what the helper finds in a namespace: whether the table is
// there, its chain's policy and its rules' comments in order.
type Observed struct {
	Present  bool     `json:"present"`
	Default  string   `json:"default,omitempty"`
	Comments []string `json:"comments,omitempty"`
}

// Decode rebuilds the policy and the host addresses from what the helper
// found. ok is false when there is no table, or when it is not exactly
// what Compile makes of the policy it describes (a rule removed, added or
// moved out of band): the namespace does not enforce a policy.
func Decode(o Observed) (p Policy, resolved map[string][]string, ok bool) {
	if !o.Present || (o.Default != Deny && o.Default != Allow) {
		return Policy{}, nil, false
	}
	p.Default = o.Default
	resolved = map[string][]string{}
	var base []string
	dns := false
	type key struct {
		verdict string
		index   int
	}
	seen := map[key]bool{}
	for _, c := range o.Comments {
		if strings.HasPrefix(c, CommentDNS+" ") {
			dns = true
			continue
		}
		if strings.HasPrefix(c, "base ") {
			base = append(base, c)
			continue
		}
		e, err := parseComment(c)
		if err != nil {
			return Policy{}, nil, false
		}
		list := &p.Allow
		if e.Verdict == Deny {
			list = &p.Deny
		}
		if k := (key{e.Verdict, e.Index}); !seen[k] {
			if e.Index != len(*list) {
				return Policy{}, nil, false
			}
			r := Rule{Protocol: e.Protocol, Host: e.Host}
			if e.Host == "" {
				r.CIDR = e.Prefix
			}
			*list = append(*list, r)
			seen[k] = true
		}
		if e.Host != "" {
			a := strings.Split(e.Prefix, "/")[0]
			if !slices.Contains(resolved[e.Host], a) {
				resolved[e.Host] = append(resolved[e.Host], a)
			}
		}
	}
	p = rebuildPorts(p, o.Comments)
	prog, err := Compile(p, resolved)
	if err != nil || !slices.Equal(base, []string{CommentLoopback, CommentReplies}) || (prog.DNS && !dns) {
		return Policy{}, nil, false
	}
	var want, got []string
	for _, e := range prog.Entries {
		want = append(want, e.Comment())
	}
	for _, c := range o.Comments {
		if !strings.HasPrefix(c, "base ") {
			got = append(got, c)
		}
	}
	if !slices.Equal(want, got) {
		return Policy{}, nil, false
	}
	return p, resolved, true
}

func rebuildPorts(p Policy, comments []string) Policy {
	for i := range p.Allow {
		p.Allow[i].Ports = nil
	}
	for i := range p.Deny {
		p.Deny[i].Ports = nil
	}
	for _, c := range comments {
		e, err := parseComment(c)
		if err != nil || e.Port == 0 {
			continue
		}
		list := p.Allow
		if e.Verdict == Deny {
			list = p.Deny
		}
		if e.Index < len(list) && !slices.Contains(list[e.Index].Ports, e.Port) {
			list[e.Index].Ports = append(list[e.Index].Ports, e.Port)
		}
	}
	return p
}

var errComment = errors.New("not a rule comment of the provider")

func parseComment(c string) (Entry, error) {
	f := strings.Fields(c)
	if len(f) < 6 || len(f) > 7 || (f[0] != Allow && f[0] != Deny) {
		return Entry{}, errComment
	}
	var e Entry
	var err1, err2 error
	e.Verdict, e.Protocol, e.L4, e.Prefix = f[0], f[1+1], f[3], f[5]
	e.Index, err1 = atoi(f[1])
	e.Port, err2 = atoi(f[4])
	if err1 != nil || err2 != nil || e.Index < 0 || e.Port < 0 || e.Port > 65535 || ValidateProtocol(e.Protocol) != nil {
		return Entry{}, errComment
	}
	if e.L4 == "-" {
		e.L4 = ""
	}
	if len(f) == 7 {
		e.Host = f[6]
	}
	if _, err := netip.ParsePrefix(e.Prefix); err != nil {
		return Entry{}, errComment
	}
	return e, nil
}
