package provider

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// echoAuthServer answers every request with 401 and a body that echoes the
// request's Authorization header, and the password it carries as a bearer
// token, URL-encoded and in base64: what a misbehaving Git server or proxy
// may put into the error a client reports. It records the headers it saw.
func echoAuthServer(t *testing.T) (string, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		mu.Lock()
		seen = append(seen, h)
		mu.Unlock()
		_, pw, _ := r.BasicAuth()
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "denied. Authorization: %s\nAuthorization: Bearer %s\nretry with ?token=%s or b64=%s\n",
			h, pw, url.QueryEscape(pw), base64.StdEncoding.EncodeToString([]byte(pw)))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestAccGitRepo_echoedCredentialsRedacted applies Git checkouts (two
// sandbox_git_repo and a sandbox_manifest git_repo entry) against a
// server that echoes the credentials back in every encoding: the apply
// fails, and neither the raw credentials nor their base64, URL-encoded or
// bearer forms appear in the CLI's output, its TF_LOG=trace logs or the
// state.
func TestAccGitRepo_echoedCredentialsRedacted(t *testing.T) {
	t.Parallel()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	base, seen := echoAuthServer(t)
	const user = "agent-user"
	token := leakSecret(t, "git-token") + "/+&="
	password := leakSecret(t, "git-password") + " ?#%"
	manifestToken := leakSecret(t, "manifest-git-token") + "/+&="
	dir := t.TempDir()
	cfg := fmt.Sprintf(`
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}

provider "sandbox" {
  local_base_dir = %q
}

variable "token" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "password" {
  type      = string
  sensitive = true
  ephemeral = true
}

variable "manifest_token" {
  type      = string
  sensitive = true
  ephemeral = true
}

resource "sandbox_workspace" "ws" {
  local {}
}

resource "sandbox_git_repo" "token" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "a"
  repo                   = "team/a"
  url                    = "%steam/a.git"
  ref                    = "main"
  token_wo               = var.token
  credentials_wo_version = 1
}

resource "sandbox_git_repo" "basic" {
  workspace_id           = sandbox_workspace.ws.id
  path                   = "b"
  repo                   = "team/b"
  url                    = "%steam/b.git"
  ref                    = "main"
  username_wo            = %q
  password_wo            = var.password
  credentials_wo_version = 1
}

resource "sandbox_manifest" "m" {
  workspace_id           = sandbox_workspace.ws.id
  manifest_json          = jsonencode({ entries = { c = { type = "git_repo", repo = "team/c", ref = "main" } } })
  git_urls               = { c = "%steam/c.git" }
  git_credentials_wo     = { c = { token = var.manifest_token } }
  credentials_wo_version = 1
}
`, filepath.Join(dir, "base"), base, base, user, base)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cli := newCLIRun(t, dir)
	cli.env = append(cli.env, "TF_VAR_token="+token, "TF_VAR_password="+password, "TF_VAR_manifest_token="+manifestToken)
	// The workspace first, so that there is a state to search.
	cli.run("target.log", "apply", "-auto-approve", "-input=false", "-no-color", "-target=sandbox_workspace.ws")
	cli.out.Reset()
	cli.mustSucceed = false
	cli.run("apply.log", "apply", "-auto-approve", "-input=false", "-no-color")
	cli.mustSucceed = true
	t.Cleanup(func() {
		cli.run("destroy.log", "destroy", "-auto-approve", "-input=false", "-target=sandbox_workspace.ws")
	})

	out := cli.out.String()
	if !loose("authentication failed", "Authorization: Basic REDACTED").MatchString(strings.ReplaceAll(out, "│", " ")) {
		t.Fatalf("the apply did not fail on the echoed authentication, or nothing was redacted:\n%s", out)
	}
	// Positive control: both credentials reached the server, so the echo
	// held every form looked for below.
	var headers string
	for _, h := range seen() {
		headers += h + "\n"
	}
	for _, pair := range []string{"x-access-token:" + token, user + ":" + password, "x-access-token:" + manifestToken} {
		if !strings.Contains(headers, base64.StdEncoding.EncodeToString([]byte(pair))) {
			t.Fatalf("positive control: the server never received the basic credentials %q", pair)
		}
	}
	var forms []string
	for _, s := range []string{token, password, manifestToken} {
		forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s), base64.StdEncoding.EncodeToString([]byte(s)), "Bearer "+s)
	}
	forms = append(forms, base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token)),
		base64.StdEncoding.EncodeToString([]byte("x-access-token:"+manifestToken)),
		base64.StdEncoding.EncodeToString([]byte(user+":"+password)))
	places := map[string]string{"CLI output": out}
	for _, f := range []string{"apply.log", "terraform.tfstate"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
		places[f] = string(b)
	}
	if !strings.Contains(places["apply.log"], "sandbox_git_repo") || !strings.Contains(places["apply.log"], "TRACE") {
		t.Fatalf("apply.log holds no trace of the provider: the log check would prove nothing")
	}
	if !strings.Contains(places["terraform.tfstate"], "sandbox_workspace") {
		t.Fatalf("the state holds no workspace: the state check would prove nothing")
	}
	for _, f := range forms {
		for place, text := range places {
			if strings.Contains(text, f) {
				t.Errorf("the credential form %q leaked into %s", f, place)
			}
		}
	}
}
