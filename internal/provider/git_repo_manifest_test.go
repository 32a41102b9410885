package provider

import "testing"

func TestSDKGitSource(t *testing.T) {
	for _, c := range []struct {
		url              string
		host, repo       string
		renders          bool
		configuredSource bool // no url: host and repo as configured
	}{
		{configuredSource: true, host: "github.com", repo: "o/r", renders: true},
		{url: "https://github.com/openai/openai-agents-python.git", host: "github.com", repo: "openai/openai-agents-python", renders: true},
		{url: "https://git.example.com:8443/group/sub/r.git", host: "git.example.com:8443", repo: "group/sub/r", renders: true},
		{url: "git://127.0.0.1:9418/evalrepo.git"},
		{url: "http://example.com/o/r.git"},
		{url: "https://github.com/o/r"}, // the Python SDK would clone .../r.git
		{url: "https://token@github.com/o/r.git"},
		{url: "https://github.com/o/r.git?ref=x"},
		{url: "ssh://git@github.com/o/r.git"},
		{url: "git@github.com:o/r.git"},
		{url: "file:///srv/r.git"},
		{url: "https://github.com/.git"},
	} {
		var u *string
		if !c.configuredSource {
			u = &c.url
		}
		h, r, ok := sdkGitSource("github.com", "o/r", u)
		if ok != c.renders || (ok && (h != c.host || r != c.repo)) {
			t.Errorf("sdkGitSource(%q) = %q, %q, %v; want %q, %q, %v", c.url, h, r, ok, c.host, c.repo, c.renders)
		}
	}
}
