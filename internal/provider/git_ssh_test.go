package provider

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshServer serves the fixture's repositories over ssh on 127.0.0.1 to
// the holder of the returned PEM private key, running git-upload-pack for
// each session, and writes a known_hosts file for the server. It returns
// the URL prefix, the key and the known_hosts path.
func (f *gitFixture) sshServer() (prefix, key, knownHosts string) {
	f.t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	must(f.t, err)
	hostKey, err := ssh.NewSignerFromKey(hostPriv)
	must(f.t, err)
	clientPub, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	must(f.t, err)
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	must(f.t, err)
	allowed, err := ssh.NewPublicKey(clientPub)
	must(f.t, err)
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(allowed.Marshal()) {
			return nil, nil
		}
		return nil, fmt.Errorf("unknown key")
	}}
	cfg.AddHostKey(hostKey)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(f.t, err)
	f.t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go f.serveSSH(c, cfg)
		}
	}()
	knownHosts = filepath.Join(f.t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize(l.Addr().String())}, hostKey.PublicKey())
	must(f.t, os.WriteFile(knownHosts, []byte(line+"\n"), 0o600))
	return "ssh://git@" + l.Addr().String() + "/", string(pem.EncodeToMemory(block)), knownHosts
}

func (f *gitFixture) serveSSH(c net.Conn, cfg *ssh.ServerConfig) {
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer func() { _ = ch.Close() }()
			for req := range creqs {
				if req.Type != "exec" || len(req.Payload) < 4 {
					_ = req.Reply(req.Type == "env", nil)
					continue
				}
				command := string(req.Payload[4:])
				name, arg, _ := strings.Cut(command, " ")
				if name != "git-upload-pack" {
					_ = req.Reply(false, nil)
					return
				}
				_ = req.Reply(true, nil)
				cmd := exec.Command("git-upload-pack", filepath.Join(f.root, strings.Trim(arg, "'/")))
				cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
				status := uint32(0)
				if err := cmd.Run(); err != nil {
					status = 1
				}
				_ = ch.CloseWrite()
				b := make([]byte, 4)
				binary.BigEndian.PutUint32(b, status)
				_, _ = ch.SendRequest("exit-status", false, b)
				return
			}
		}()
	}
}

func TestAccGitRepo_ssh(t *testing.T) {
	env := newTestEnv(t)
	f := newGitFixture(t)
	_, c2, _, files2 := demoRepo(f)
	prefix, key, knownHosts := f.sshServer()
	t.Setenv("SSH_KNOWN_HOSTS", knownHosts)
	t.Setenv("TF_VAR_git_ssh_key", key)
	vars := `
variable "git_ssh_key" {
  type      = string
  sensitive = true
  ephemeral = true
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config: env.config(vars + gitRepoBody(prefix+"fixture/demo.git", "v1", "ssh_private_key_wo = var.git_ssh_key")),
				Check: resource.ComposeTestCheckFunc(
					expectCopy(env, files2),
					resource.TestCheckResourceAttr("sandbox_git_repo.r", "commit", c2),
					noSecretInState(strings.Split(strings.TrimSpace(key), "\n")[1]),
				),
			},
		},
	})
}
