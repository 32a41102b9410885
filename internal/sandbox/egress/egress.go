// Package egress is a workspace's outbound network policy: what it is,
// how it is checked, and the flat list of rules that the file helper
// programs into the workspace's own network namespace (see
// fshelper's egress operation). It knows nothing about Terraform.
package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Defaults of Policy.Default.
const (
	Deny  = "deny"
	Allow = "allow"
)

// Protocols of Rule.Protocol; "" means ProtoAny.
const (
	ProtoAny  = "any" // TCP and UDP (and, without ports, every protocol)
	ProtoTCP  = "tcp"
	ProtoUDP  = "udp"
	ProtoICMP = "icmp" // ICMP and ICMPv6
)

// Limits keep a policy, and the table made of it, small.
const (
	MaxRules     = 128 // allow and deny rules together
	MaxPorts     = 32  // ports of one rule
	MaxAddresses = 16  // addresses a host rule resolves to (the first ones are kept)
	MaxHostLen   = 180 // a host name's length (it travels in the rule's comment)
	MaxNftRules  = 4096
)

// Rule is one allow or deny rule: exactly one of CIDR or Host.
type Rule struct {
	CIDR     string `json:"cidr,omitempty"`
	Host     string `json:"host,omitempty"`
	Ports    []int  `json:"ports,omitempty"`
	Protocol string `json:"protocol,omitempty"`
}

// Policy is a workspace's egress policy. Deny rules are checked before
// allow rules; what neither matches gets Default. Loopback, replies to
// connections made to the workspace and, when a rule names a host, DNS to
// the workspace's resolvers are always allowed.
type Policy struct {
	Default string `json:"default"`
	Allow   []Rule `json:"allow,omitempty"`
	Deny    []Rule `json:"deny,omitempty"`
}

// HasHosts says whether a rule names a host.
func (p Policy) HasHosts() bool {
	for _, r := range append(slices.Clone(p.Allow), p.Deny...) {
		if r.Host != "" {
			return true
		}
	}
	return false
}

// Hosts returns the host names of the rules, each once, in order.
func (p Policy) Hosts() []string {
	var out []string
	for _, r := range append(slices.Clone(p.Allow), p.Deny...) {
		if r.Host != "" && !slices.Contains(out, r.Host) {
			out = append(out, r.Host)
		}
	}
	return out
}

// Validate checks the whole policy.
func (p Policy) Validate() error {
	if p.Default != Deny && p.Default != Allow {
		return fmt.Errorf("default %q: expected %q or %q", p.Default, Deny, Allow)
	}
	if len(p.Allow)+len(p.Deny) > MaxRules {
		return fmt.Errorf("%d rules: at most %d", len(p.Allow)+len(p.Deny), MaxRules)
	}
	for i, r := range p.Allow {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("allow[%d]: %w", i, err)
		}
	}
	for i, r := range p.Deny {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("deny[%d]: %w", i, err)
		}
	}
	return nil
}

// Validate checks one rule.
func (r Rule) Validate() error {
	if (r.CIDR == "") == (r.Host == "") {
		return errors.New("exactly one of cidr or host must be set")
	}
	if r.CIDR != "" {
		if _, err := ParseCIDR(r.CIDR); err != nil {
			return err
		}
	}
	if r.Host != "" {
		if err := ValidateHost(r.Host); err != nil {
			return err
		}
	}
	if err := ValidateProtocol(r.Protocol); err != nil {
		return err
	}
	if r.Host != "" && r.Protocol == ProtoICMP {
		return errors.New(`protocol "icmp" cannot be used with host: give the addresses as cidr`)
	}
	if len(r.Ports) > MaxPorts {
		return fmt.Errorf("%d ports: at most %d", len(r.Ports), MaxPorts)
	}
	if len(r.Ports) > 0 && r.Protocol == ProtoICMP {
		return errors.New(`ports cannot be used with protocol "icmp"`)
	}
	for _, p := range r.Ports {
		if err := ValidatePort(p); err != nil {
			return err
		}
	}
	return nil
}

// ParseCIDR parses an address or a prefix ("10.0.0.0/8", "fd00::/8",
// "192.0.2.7") whose host bits are zero.
func ParseCIDR(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("cidr %q: not an IPv4 or IPv6 address or prefix", s)
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("cidr %q: not an IPv4 or IPv6 prefix (as 10.0.0.0/8 or fd00::/8)", s)
	}
	if p.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("cidr %q: write IPv4 prefixes in IPv4 form", s)
	}
	if p.Masked() != p {
		return netip.Prefix{}, fmt.Errorf("cidr %q: host bits are set (did you mean %s?)", s, p.Masked())
	}
	return p, nil
}

// ValidateHost checks a DNS name (not an address: those go in cidr).
func ValidateHost(h string) error {
	if _, err := netip.ParseAddr(h); err == nil {
		return fmt.Errorf("host %q is an address: give it as cidr", h)
	}
	if len(h) > MaxHostLen {
		return fmt.Errorf("host %q: longer than %d characters", h, MaxHostLen)
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("host %q: not a DNS name", h)
		}
		for _, c := range label {
			if !hostChar(c) {
				return fmt.Errorf("host %q: not a DNS name", h)
			}
		}
	}
	return nil
}

// ValidateProtocol checks a protocol ("" is ProtoAny).
func ValidateProtocol(p string) error {
	switch p {
	case "", ProtoAny, ProtoTCP, ProtoUDP, ProtoICMP:
		return nil
	}
	return fmt.Errorf("protocol %q: expected %q, %q, %q or %q", p, ProtoAny, ProtoTCP, ProtoUDP, ProtoICMP)
}

// ValidatePort checks a port number.
func ValidatePort(p int) error {
	if p < 1 || p > 65535 {
		return fmt.Errorf("port %d: expected 1 to 65535", p)
	}
	return nil
}

func proto(p string) string {
	if p == "" {
		return ProtoAny
	}
	return p
}

func itoa(i int) string { return strconv.Itoa(i) }

func atoi(s string) (int, error) { return strconv.Atoi(s) }

func hostChar(c rune) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
