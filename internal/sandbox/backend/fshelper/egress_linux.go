//go:build linux

package fshelper

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/userdata"
	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/egress"
)

// EgressTable is the nftables table (family inet) holding the policy.
const EgressTable = "sandbox_egress"

const (
	egressChain      = "output"
	egressMaxProgram = 4 << 20
	resolvConf       = "/etc/resolv.conf"
)

func egressMain(sub string, stdin io.Reader, stdout, stderr io.Writer) int {
	conn, err := nftables.New()
	if err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", HelperName, OpEgress, err)
		return 1
	}
	switch sub {
	case "apply":
		var prog egress.Program
		dec := json.NewDecoder(io.LimitReader(stdin, egressMaxProgram))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&prog); err != nil {
			fmt.Fprintf(stderr, "%s %s: reading the program: %v\n", HelperName, OpEgress, err)
			return 2
		}
		if err := egressApply(conn, prog); err != nil {
			fmt.Fprintf(stderr, "%s %s: %v\n", HelperName, OpEgress, err)
			return 1
		}
	case "remove":
		table := &nftables.Table{Family: nftables.TableFamilyINet, Name: EgressTable}
		conn.AddTable(table) // so that the deletion cannot fail on a missing table
		conn.DelTable(table)
		if err := conn.Flush(); err != nil {
			fmt.Fprintf(stderr, "%s %s: removing table inet %s: %v\n", HelperName, OpEgress, EgressTable, err)
			return 1
		}
	case "list":
	default:
		fmt.Fprintf(stderr, "usage: %s %s apply|remove|list\n", HelperName, OpEgress)
		return 2
	}
	o, err := egressList(conn)
	if err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", HelperName, OpEgress, err)
		return 1
	}
	if err := json.NewEncoder(stdout).Encode(o); err != nil {
		return 1
	}
	return 0
}

func egressApply(conn *nftables.Conn, prog egress.Program) error {
	if prog.Default != egress.Deny && prog.Default != egress.Allow {
		return fmt.Errorf("default %q", prog.Default)
	}
	table := &nftables.Table{Family: nftables.TableFamilyINet, Name: EgressTable}
	// Add, delete and add again in one batch: the table is replaced
	// atomically whether or not it was there.
	conn.AddTable(table)
	conn.DelTable(table)
	conn.AddTable(table)
	policy := nftables.ChainPolicyDrop
	if prog.Default == egress.Allow {
		policy = nftables.ChainPolicyAccept
	}
	chain := conn.AddChain(&nftables.Chain{Name: egressChain, Table: table, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityFilter, Policy: &policy})
	add := func(comment string, verdict expr.VerdictKind, exprs ...expr.Any) {
		conn.AddRule(&nftables.Rule{Table: table, Chain: chain, Exprs: append(exprs, &expr.Verdict{Kind: verdict}),
			UserData: userdata.AppendString(nil, userdata.TypeComment, comment)})
	}
	add(egress.CommentLoopback, expr.VerdictAccept,
		&expr.Meta{Key: expr.MetaKeyOIFNAME, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ifname("lo")})
	add(egress.CommentReplies, expr.VerdictAccept,
		&expr.Ct{Register: 1, Key: expr.CtKeySTATE},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binary.NativeEndian.AppendUint32(nil, expr.CtStateBitESTABLISHED|expr.CtStateBitRELATED), Xor: make([]byte, 4)},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: make([]byte, 4)})
	if prog.DNS {
		for _, ns := range nameservers() {
			for _, l4 := range []string{egress.ProtoUDP, egress.ProtoTCP} {
				m, err := match(netip.PrefixFrom(ns, ns.BitLen()), l4, 53)
				if err != nil {
					return err
				}
				add(fmt.Sprintf("%s %s %s", egress.CommentDNS, ns, l4), expr.VerdictAccept, m...)
			}
		}
	}
	for _, e := range prog.Entries {
		p, err := netip.ParsePrefix(e.Prefix)
		if err != nil {
			return fmt.Errorf("entry prefix %q: %w", e.Prefix, err)
		}
		m, err := match(p, e.L4, e.Port)
		if err != nil {
			return err
		}
		v := expr.VerdictAccept
		if e.Verdict == egress.Deny {
			v = expr.VerdictDrop
		}
		add(e.Comment(), v, m...)
	}
	if err := conn.Flush(); err != nil {
		return fmt.Errorf("programming table inet %s: %w", EgressTable, err)
	}
	return nil
}

// match returns the expressions matching packets to prefix p, of l4
// ("" any) and to port (0 any).
func match(p netip.Prefix, l4 string, port int) ([]expr.Any, error) {
	fam, off, icmp := byte(unix.NFPROTO_IPV4), uint32(16), byte(unix.IPPROTO_ICMP)
	if p.Addr().Is6() {
		fam, off, icmp = byte(unix.NFPROTO_IPV6), 24, byte(unix.IPPROTO_ICMPV6)
	}
	addr := p.Addr().AsSlice()
	out := []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{fam}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: off, Len: uint32(len(addr))},
	}
	if p.Bits() < p.Addr().BitLen() {
		mask := make([]byte, len(addr))
		for i := 0; i < p.Bits(); i++ {
			mask[i/8] |= 0x80 >> (i % 8)
		}
		out = append(out, &expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: uint32(len(addr)), Mask: mask, Xor: make([]byte, len(addr))})
	}
	out = append(out, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: addr})
	var proto byte
	switch l4 {
	case "":
		return out, nil
	case egress.ProtoTCP:
		proto = unix.IPPROTO_TCP
	case egress.ProtoUDP:
		proto = unix.IPPROTO_UDP
	case egress.ProtoICMP:
		proto = icmp
	default:
		return nil, fmt.Errorf("entry protocol %q", l4)
	}
	out = append(out, &expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1}, &expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{proto}})
	if port != 0 {
		out = append(out,
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binary.BigEndian.AppendUint16(nil, uint16(port))})
	}
	return out, nil
}

func ifname(n string) []byte {
	b := make([]byte, unix.IFNAMSIZ)
	copy(b, n)
	return b
}

// nameservers returns the resolvers of the namespace's resolv.conf (the
// workspace's own: a container joined to its network namespace shares it).
func nameservers() []netip.Addr {
	f, err := os.Open(resolvConf)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []netip.Addr
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "nameserver" {
			if a, err := netip.ParseAddr(fields[1]); err == nil && a.Zone() == "" && len(out) < 8 {
				out = append(out, a.Unmap())
			}
		}
	}
	return out
}

func egressList(conn *nftables.Conn) (egress.Observed, error) {
	tables, err := conn.ListTablesOfFamily(nftables.TableFamilyINet)
	if err != nil {
		return egress.Observed{}, fmt.Errorf("listing tables: %w", err)
	}
	var table *nftables.Table
	for _, t := range tables {
		if t.Name == EgressTable {
			table = t
		}
	}
	if table == nil {
		return egress.Observed{}, nil
	}
	chains, err := conn.ListChainsOfTableFamily(nftables.TableFamilyINet)
	if err != nil {
		return egress.Observed{}, fmt.Errorf("listing chains: %w", err)
	}
	var chain *nftables.Chain
	for _, c := range chains {
		if c.Table != nil && c.Table.Name == EgressTable && c.Name == egressChain {
			chain = c
		}
	}
	o := egress.Observed{Present: true}
	if chain == nil || chain.Policy == nil || chain.Hooknum == nil || *chain.Hooknum != *nftables.ChainHookOutput {
		return o, nil // a table without its chain enforces nothing
	}
	o.Default = egress.Allow
	if *chain.Policy == nftables.ChainPolicyDrop {
		o.Default = egress.Deny
	}
	rules, err := conn.GetRules(table, chain)
	if err != nil {
		return egress.Observed{}, fmt.Errorf("listing rules: %w", err)
	}
	for _, r := range rules {
		c, ok := userdata.GetString(r.UserData, userdata.TypeComment)
		if !ok {
			c = "(no comment)"
		}
		o.Comments = append(o.Comments, c)
	}
	if len(o.Comments) > egress.MaxNftRules+32 {
		return egress.Observed{}, errors.New("too many rules in the table")
	}
	return o, nil
}
