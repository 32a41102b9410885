package egress

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func observed(t *testing.T, p Policy, resolved map[string][]string, dns bool) Observed {
	t.Helper()
	prog, err := Compile(p, resolved)
	if err != nil {
		t.Fatal(err)
	}
	o := Observed{Present: true, Default: p.Default, Comments: []string{CommentLoopback, CommentReplies}}
	if dns {
		o.Comments = append(o.Comments, CommentDNS+" 127.0.0.11 udp", CommentDNS+" 127.0.0.11 tcp")
	}
	for _, e := range prog.Entries {
		o.Comments = append(o.Comments, e.Comment())
	}
	return o
}

// The policy and the host addresses are rebuilt from the rule comments of
// a table exactly as Compile makes it.
func TestDecodeRoundTrip(t *testing.T) {
	p := Policy{Default: Deny,
		Allow: []Rule{{CIDR: "10.0.0.0/8", Ports: []int{443, 80}, Protocol: ProtoAny}, {Host: "mirror.test", Ports: []int{443}, Protocol: ProtoTCP},
			{CIDR: "fd00::/8", Protocol: ProtoICMP}},
		Deny: []Rule{{CIDR: "10.9.0.0/16", Protocol: ProtoAny}},
	}
	resolved := map[string][]string{"mirror.test": {"192.0.2.1", "2001:db8::1"}}
	got, gotResolved, ok := Decode(observed(t, p, resolved, true))
	if !ok {
		t.Fatal("a complete table did not decode")
	}
	if !reflect.DeepEqual(got, p) || !reflect.DeepEqual(gotResolved, resolved) {
		t.Fatalf("decoded %+v %v\nwant    %+v %v", got, gotResolved, p, resolved)
	}
}

// A table changed out of band does not decode as a policy: the plan shows
// the policy missing and the apply programs it again.
func TestDecodeRefusesChangedTables(t *testing.T) {
	p := Policy{Default: Deny, Allow: []Rule{{CIDR: "10.0.0.1/32", Ports: []int{8080}, Protocol: ProtoAny}, {CIDR: "10.0.0.2/32", Protocol: ProtoAny}}}
	full := observed(t, p, nil, false)
	cases := map[string]func(o Observed) Observed{
		"no table":      func(Observed) Observed { return Observed{} },
		"chain flushed": func(o Observed) Observed { o.Comments = nil; return o },
		"no loopback":   func(o Observed) Observed { o.Comments = o.Comments[1:]; return o },
		"rule removed":  func(o Observed) Observed { o.Comments = slices.Delete(slices.Clone(o.Comments), 3, 4); return o },
		"rule added": func(o Observed) Observed {
			o.Comments = append(slices.Clone(o.Comments), "allow 0 any tcp 22 0.0.0.0/0")
			return o
		},
		"foreign rule": func(o Observed) Observed { o.Comments = append(slices.Clone(o.Comments), "(no comment)"); return o },
		"rules swapped": func(o Observed) Observed {
			c := slices.Clone(o.Comments)
			c[2], c[4] = c[4], c[2]
			o.Comments = c
			return o
		},
		"policy changed": func(o Observed) Observed { o.Default = ""; return o },
	}
	if _, _, ok := Decode(full); !ok {
		t.Fatal("the complete table did not decode")
	}
	for name, change := range cases {
		if _, _, ok := Decode(change(full)); ok {
			t.Errorf("%s: decoded as a policy", name)
		}
	}
	// A table without the DNS rules does not enforce a policy with hosts.
	h := Policy{Default: Deny, Allow: []Rule{{Host: "a.test", Protocol: ProtoAny}}}
	if _, _, ok := Decode(observed(t, h, map[string][]string{"a.test": {"192.0.2.9"}}, false)); ok {
		t.Error("a host policy without DNS rules decoded")
	}
}

func TestValidate(t *testing.T) {
	bad := map[string]Rule{
		"host bits are set":     {CIDR: "10.0.0.1/8"},
		"not an IPv4 or IPv6":   {CIDR: "10.0.0.256"},
		"exactly one of cidr":   {CIDR: "10.0.0.0/8", Host: "a.test"},
		"port 0":                {CIDR: "10.0.0.0/8", Ports: []int{0}},
		"port 65536":            {CIDR: "10.0.0.0/8", Ports: []int{65536}},
		`"icmp" cannot be used`: {Host: "a.test", Protocol: ProtoICMP},
		"ports cannot be used":  {CIDR: "10.0.0.0/8", Ports: []int{1}, Protocol: ProtoICMP},
		"is an address":         {Host: "192.0.2.1"},
		"not a DNS name":        {Host: "a..test"},
		`protocol "sctp"`:       {CIDR: "10.0.0.0/8", Protocol: "sctp"},
		"write IPv4 prefixes":   {CIDR: "::ffff:10.0.0.0/104"},
		"longer than 180":       {Host: strings.Repeat("a.", 91) + "test"},
	}
	for want, r := range bad {
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: got %v, want an error containing %q", r, err, want)
		}
	}
	for _, r := range []Rule{{CIDR: "192.0.2.7"}, {CIDR: "fd00::/8", Ports: []int{1, 65535}}, {Host: "api.example.com", Protocol: ProtoTCP}} {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	if err := (Policy{Default: "block"}).Validate(); err == nil {
		t.Error("default \"block\" was accepted")
	}
}
