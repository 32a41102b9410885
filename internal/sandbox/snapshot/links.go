package snapshot

import (
	"fmt"
	"sort"
	"strings"
)

// MaxLinkHops bounds the symlinks followed while resolving one link, as
// Linux's MAXSYMLINKS does; a longer chain (or a loop) is refused.
const MaxLinkHops = 40

// escapingLinks resolves every symlink of links (workspace-relative path →
// target) as the filesystem would once the whole tree is laid out: from
// the link's directory, component by component, following every link of
// the same tree it meets, with ".." climbing the directory actually
// reached. It returns the links whose resolution leaves the root (or
// needs more than MaxLinkHops links), each with the reason.
func escapingLinks(links map[string]string) map[string]string {
	bad := map[string]string{}
	for rel := range links {
		if why := resolveLink(links, rel); why != "" {
			bad[rel] = why
		}
	}
	return bad
}

// safeLinks removes from links, until none is left, every link whose
// resolution leaves the root (removing one can change where another
// resolves), and returns the removed ones with their reasons.
func safeLinks(links map[string]string) map[string]string {
	removed := map[string]string{}
	for {
		bad := escapingLinks(links)
		if len(bad) == 0 {
			return removed
		}
		for rel, why := range bad {
			removed[rel] = why
			delete(links, rel)
		}
	}
}

func resolveLink(links map[string]string, rel string) string {
	var cur []string
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		cur = strings.Split(rel[:i], "/")
	}
	rest := strings.Split(links[rel], "/")
	via := []string{rel}
	for len(rest) > 0 {
		seg := rest[0]
		rest = rest[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return fmt.Sprintf("link target %q resolves outside the workspace root (through the links %s)",
					links[rel], strings.Join(via, " → "))
			}
			cur = cur[:len(cur)-1]
			continue
		}
		p := strings.Join(append(cur[:len(cur):len(cur)], seg), "/")
		target, ok := links[p]
		if !ok {
			cur = append(cur, seg) // a directory, a file or nothing yet: ".." after it climbs back
			continue
		}
		via = append(via, p)
		if len(via) > MaxLinkHops {
			return fmt.Sprintf("link target %q takes more than %d links to resolve (a loop?)", links[rel], MaxLinkHops)
		}
		if strings.HasPrefix(target, "/") {
			return fmt.Sprintf("link target %q resolves through the absolute link %s", links[rel], p)
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return ""
}

// firstKey is the smallest key of m.
func firstKey(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys[0]
}
