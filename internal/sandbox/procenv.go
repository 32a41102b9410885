package sandbox

import (
	"maps"
	"os"
	"slices"
	"strings"
)

// inheritedEnv names the variables of the provider's own environment that
// a process it starts on the host may see: the search path, locale, time
// zone, temporary directory, identity, and proxy and CA settings that
// network tools need. Everything else (TF_VAR_* inputs, cloud credentials,
// tokens) stays in the provider: Terraform's environment often carries
// secrets, and a helper's /proc/<pid>/environ is readable by every process
// of the same user, the workspace's commands included.
var inheritedEnv = map[string]bool{
	"PATH": true, "HOME": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true,
	"USER": true, "LOGNAME": true, "TERM": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true, "all_proxy": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// ProcessEnv returns the environment of a process the provider starts on
// the host: the allowlisted variables of its own environment (PATH, HOME,
// LANG and LC_*, TZ, TMPDIR, USER, LOGNAME, TERM, proxy and CA settings),
// plus keep (extra names a particular tool needs, such as SSH_AUTH_SOCK
// for ssh), then set, which overrides them, in sorted order of names.
func ProcessEnv(keep []string, set map[string]string) []string {
	extra := map[string]bool{}
	for _, k := range keep {
		extra[k] = true
	}
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, overridden := set[k]; overridden {
			continue
		}
		if inheritedEnv[k] || strings.HasPrefix(k, "LC_") || extra[k] {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}
