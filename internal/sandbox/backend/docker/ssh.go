package docker

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"sync"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// sshArgs is the ssh command line that reaches the daemon behind an
// ssh://[user@]host[:port] URL, as the docker CLI's connection helper does:
// `ssh [-l user] [-p port] -- host docker system dial-stdio`. Authentication
// and host keys are ssh's own (agent, ~/.ssh/config, known_hosts).
func sshArgs(u *url.URL) []string {
	args := []string{"-o", "ConnectTimeout=30"}
	if name := u.User.Username(); name != "" {
		args = append(args, "-l", name)
	}
	if port := u.Port(); port != "" {
		args = append(args, "-p", port)
	}
	return append(args, "--", u.Hostname(), "docker", "system", "dial-stdio")
}

// dialSSH starts ssh and returns its stdin/stdout as a connection.
func dialSSH(_ context.Context, u *url.URL) (net.Conn, error) {
	// The connection outlives the dial context: ssh is tied to Close.
	cmd := exec.Command("ssh", sshArgs(u)...)
	// ssh needs its agent and configuration, not the rest of Terraform's
	// environment.
	cmd.Env = sandbox.ProcessEnv([]string{"SSH_AUTH_SOCK", "SSH_AGENT_PID", "DISPLAY", "SSH_ASKPASS"}, nil)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("docker host %s: starting ssh: %w", u.Redacted(), err)
	}
	return &cmdConn{cmd: cmd, r: stdout, w: stdin, host: u.Host}, nil
}

// cmdConn is a net.Conn over a command's stdio.
type cmdConn struct {
	cmd  *exec.Cmd
	r    io.ReadCloser
	w    io.WriteCloser
	host string
	once sync.Once
}

func (c *cmdConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *cmdConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// CloseWrite ends the command's stdin (a half-close, for exec stdin).
func (c *cmdConn) CloseWrite() error { return c.w.Close() }

func (c *cmdConn) Close() error {
	c.once.Do(func() {
		_ = c.w.Close()
		_ = c.r.Close()
		if c.cmd.Process != nil {
			_ = c.cmd.Process.Kill()
		}
		_ = c.cmd.Wait()
	})
	return nil
}

type sshAddr string

func (a sshAddr) Network() string { return "ssh" }
func (a sshAddr) String() string  { return string(a) }

func (c *cmdConn) LocalAddr() net.Addr              { return sshAddr("local") }
func (c *cmdConn) RemoteAddr() net.Addr             { return sshAddr(c.host) }
func (c *cmdConn) SetDeadline(time.Time) error      { return nil }
func (c *cmdConn) SetReadDeadline(time.Time) error  { return nil }
func (c *cmdConn) SetWriteDeadline(time.Time) error { return nil }
