// Package gitrepo fetches Git repositories on the host for the Python SDK's
// GitRepo entry (design/sdk-model.md §2.6): it resolves a ref against the remote, fetches
// the commit into a temporary directory and checks its tree out there, so
// that the tree can be copied into a workspace like a local directory. No
// git binary is needed, neither on the host nor in the workspace.
package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Credentials authenticate to a private repository. They are never part of
// an error message: errors name the URL with its userinfo removed.
type Credentials struct {
	// Token is an HTTP(S) access token, sent as the basic-auth password.
	Token string
	// Username and Password are HTTP(S) basic-auth credentials.
	Username, Password string
	// SSHPrivateKey is a PEM private key for ssh URLs.
	SSHPrivateKey string
}

// Source is a remote repository.
type Source struct {
	// URL is the clone URL: https://, http://, git://, file://, ssh:// or
	// scp-like user@host:path.
	URL string
	// Credentials is empty for a public repository.
	Credentials Credentials
}

// DefaultURL is the Python SDK's clone URL, https://<host>/<repo>.git.
func DefaultURL(host, repo string) string { return "https://" + host + "/" + repo + ".git" }

// Redact returns rawURL without userinfo (user and password), for messages.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		// scp-like user@host:path: drop the user.
		if at := strings.Index(rawURL, "@"); at >= 0 && !strings.Contains(rawURL[:at], "/") {
			return rawURL[at+1:]
		}
		return rawURL
	}
	u.User = nil
	return u.String()
}

// Ref kinds an error can be about, for the attribute it names.
var (
	// ErrUnknownRef is wrapped when no branch, tag or commit matches ref.
	ErrUnknownRef = errors.New("unknown ref")
	// ErrAuth is wrapped when the server refuses the credentials.
	ErrAuth = errors.New("authentication failed")
	// ErrUnreachable is wrapped when the server cannot be reached or read.
	ErrUnreachable = errors.New("repository unreachable")
	// ErrSubpathMissing is wrapped when subpath is not a directory of the
	// checked-out tree.
	ErrSubpathMissing = errors.New("subpath missing in the repository")
	// ErrMoved is wrapped when a branch or tag moved between plan and apply.
	ErrMoved = errors.New("ref moved since the plan")
)

// tokenUser is the basic-auth user name sent with a Token.
const tokenUser = "x-access-token"

// Secrets returns the values to redact from every error and log line of
// an operation with these credentials: the pairs that basic authentication
// encodes (so the base64 of an echoed Authorization header is caught), the
// token, password and private key, and a user name of 3 bytes or more.
func (c Credentials) Secrets() []string {
	out := []string{redact.BasicAuthPair(tokenUser, c.Token), redact.BasicAuthPair(c.Username, c.Password),
		c.Token, c.Password, c.SSHPrivateKey}
	if len(c.Username) >= 3 {
		out = append(out, c.Username)
	}
	return out
}

func (s Source) auth() (transport.AuthMethod, error) {
	c := s.Credentials
	switch {
	case c.SSHPrivateKey != "":
		user := "git"
		if ep, err := transport.NewEndpoint(s.URL); err == nil && ep.User != "" {
			user = ep.User
		}
		k, err := ssh.NewPublicKeys(user, []byte(c.SSHPrivateKey), "")
		if err != nil {
			return nil, errors.New("ssh_private_key_wo is not a usable PEM private key")
		}
		return k, nil
	case c.Token != "":
		return &http.BasicAuth{Username: tokenUser, Password: c.Token}, nil
	case c.Username != "" || c.Password != "":
		return &http.BasicAuth{Username: c.Username, Password: c.Password}, nil
	}
	return nil, nil
}

// scrub removes credentials from err's text and classifies it.
func (s Source) scrub(err error, what string) error {
	if err == nil {
		return nil
	}
	msg := strings.ReplaceAll(err.Error(), s.URL, Redact(s.URL))
	msg = redact.Text(msg, s.Credentials.Secrets())
	kind := ErrUnreachable
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		kind = ErrAuth
	case errors.Is(err, ErrUnknownRef), errors.Is(err, plumbing.ErrReferenceNotFound), errors.Is(err, plumbing.ErrObjectNotFound):
		kind = ErrUnknownRef
	}
	return fmt.Errorf("%s %s: %w: %s", what, Redact(s.URL), kind, msg)
}

// Resolve returns the commit ref names on the remote (ls-remote): a branch
// (refs/heads/<ref>) before a tag (refs/tags/<ref>, peeled to its commit),
// or a full ref name. A 40-hex commit is returned as is, lower-cased. An
// abbreviated commit is matched against the advertised heads and tags; when
// none matches, Resolve returns "" and no error: only a fetch can tell.
func Resolve(ctx context.Context, s Source, ref string) (string, error) {
	if LooksLikeCommitRef(ref) && len(ref) == 40 {
		return strings.ToLower(ref), nil
	}
	auth, err := s.auth()
	if err != nil {
		return "", err
	}
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{s.URL}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: auth, PeelingOption: git.AppendPeeled})
	if err != nil {
		return "", s.scrub(err, "listing the refs of")
	}
	byName := map[string]string{}
	for _, r := range refs {
		if r.Type() == plumbing.HashReference {
			byName[r.Name().String()] = r.Hash().String()
		}
	}
	if LooksLikeCommitRef(ref) {
		short := strings.ToLower(ref)
		for _, h := range byName {
			if strings.HasPrefix(h, short) {
				return h, nil
			}
		}
		return "", nil
	}
	for _, name := range []string{"refs/heads/" + ref, "refs/tags/" + ref, ref} {
		if h, ok := byName[name+"^{}"]; ok {
			return h, nil
		}
		if h, ok := byName[name]; ok {
			return h, nil
		}
	}
	return "", fmt.Errorf("no branch or tag %q in %s: %w", ref, Redact(s.URL), ErrUnknownRef)
}

// removeAll is os.RemoveAll, replaceable by tests.
var removeAll = os.RemoveAll
