package egress

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"time"
)

// ResolverEnv names an environment variable of the provider's process:
// when set to "address:port", host rules are resolved by that DNS server
// instead of the system's resolvers. It exists for tests (a DNS server
// whose answers the test controls) and for hosts whose system resolver
// is not the one the workspaces use.
const ResolverEnv = "SANDBOX_EGRESS_DNS"

// resolveTimeout bounds the resolution of all hosts of a policy.
const resolveTimeout = 20 * time.Second

// Resolve returns the addresses each host resolves to (IPv4 and IPv6,
// sorted, at most MaxAddresses each). A host that does not resolve is an
// error naming it.
func Resolve(ctx context.Context, hosts []string) (map[string][]string, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	r := net.DefaultResolver
	if server := os.Getenv(ResolverEnv); server != "" {
		r = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server)
		}}
	}
	out := map[string][]string{}
	for _, h := range hosts {
		addrs, err := r.LookupNetIP(ctx, "ip", h)
		if err != nil {
			return nil, fmt.Errorf("resolving egress host %s: %w", h, err)
		}
		var list []string
		for _, a := range addrs {
			s := a.Unmap().String()
			if !slices.Contains(list, s) {
				list = append(list, s)
			}
		}
		slices.Sort(list)
		if len(list) > MaxAddresses {
			list = list[:MaxAddresses]
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("egress host %s resolved to no address", h)
		}
		out[h] = list
	}
	return out, nil
}
