package provider

import (
	"net/url"
	"strings"
)

// sdkGitSource returns the Python SDK's GitRepo host and repo for a
// checkout of host/repo, or of rawURL when a url is set. The Python SDK
// clones only https://<host>/<repo>.git, so a url renders only when it has
// exactly that form (https, no user, query or fragment, a path ending in
// ".git"); for any other url ok is false and manifest_entry is null rather
// than an entry that would make the Python SDK clone another repository.
func sdkGitSource(host, repo string, rawURL *string) (h, r string, ok bool) {
	if rawURL == nil {
		return host, repo, true
	}
	u, err := url.Parse(*rawURL)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
		u.Opaque != "" || u.ForceQuery {
		return "", "", false
	}
	p := strings.TrimPrefix(u.EscapedPath(), "/")
	if !strings.HasSuffix(p, ".git") || p == ".git" || strings.HasSuffix(p, "/.git") {
		return "", "", false
	}
	return u.Host, strings.TrimSuffix(p, ".git"), true
}
