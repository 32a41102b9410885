package docker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"
)

// HostConfig says how to reach the Docker daemon: the provider's settings
// (spec.DockerConfig, with the environment as fallback) and, for tests and
// benchmarks, a counter of the API requests made.
type HostConfig struct {
	spec.DockerConfig
	// Requests, when set, counts every API request made to the daemon;
	// nil counts nothing.
	Requests *RequestCounter
}

// ErrNoCA is wrapped when TLS material is given without a CA certificate:
// verification of the daemon is never skipped.
var ErrNoCA = errors.New("TLS client material was given without a CA certificate; the daemon's certificate is always verified, so a CA is required")

// resolved is a HostConfig with the environment applied.
type resolved struct {
	host     string
	tls      *tls.Config
	sshURL   *url.URL
	tlsWhere string
}

// resolve applies the environment to c and loads the TLS material.
func (c HostConfig) resolve() (resolved, error) {
	var r resolved
	r.host = c.Host
	if r.host == "" {
		r.host = os.Getenv("DOCKER_HOST")
	}
	if r.host == "" {
		r.host = client.DefaultDockerHost
	}
	u, err := url.Parse(r.host)
	if err != nil || u.Scheme == "" {
		return r, fmt.Errorf("docker host %q: expected unix:///path, tcp://host:port or ssh://[user@]host[:port]", r.host)
	}
	switch u.Scheme {
	case "ssh":
		if u.Host == "" || (u.Path != "" && u.Path != "/") {
			return r, fmt.Errorf("docker host %q: expected ssh://[user@]host[:port] without a path", r.host)
		}
		r.sshURL = u
		return r, nil
	case "unix", "npipe":
		return r, nil
	case "tcp", "http", "https":
	default:
		return r, fmt.Errorf("docker host %q: unsupported scheme %q (unix, tcp or ssh)", r.host, u.Scheme)
	}
	ca, cert, key, where, err := c.tlsMaterial()
	if err != nil || where == "" {
		return r, err
	}
	r.tls, err = tlsConfig(ca, cert, key, where)
	r.tlsWhere = where
	return r, err
}

// tlsMaterial returns the PEM material from the provider block or the
// environment; where is "" when no TLS is configured.
func (c HostConfig) tlsMaterial() (ca, cert, key []byte, where string, err error) {
	if c.CAPEM != "" || c.CertPEM != "" || c.KeyPEM != "" {
		return []byte(c.CAPEM), []byte(c.CertPEM), []byte(c.KeyPEM), "docker_ca_pem/docker_cert_pem/docker_key_pem", nil
	}
	dir := c.CertPath
	if dir == "" {
		dir = os.Getenv("DOCKER_CERT_PATH")
	}
	if dir == "" && os.Getenv("DOCKER_TLS_VERIFY") != "" {
		if home, herr := os.UserHomeDir(); herr == nil {
			dir = filepath.Join(home, ".docker")
		}
	}
	if dir == "" {
		return nil, nil, nil, "", nil
	}
	read := func(name string) ([]byte, error) {
		b, rerr := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(rerr, os.ErrNotExist) {
			return nil, nil
		}
		return b, rerr
	}
	if ca, err = read("ca.pem"); err == nil {
		if cert, err = read("cert.pem"); err == nil {
			key, err = read("key.pem")
		}
	}
	if err != nil {
		return nil, nil, nil, "", fmt.Errorf("docker TLS material in %s: %w", dir, err)
	}
	return ca, cert, key, "docker cert path " + dir, nil
}

// tlsConfig builds a verifying TLS configuration: the CA is required, the
// client certificate and key go together, TLS 1.2 at least.
func tlsConfig(ca, cert, key []byte, where string) (*tls.Config, error) {
	if len(ca) == 0 {
		return nil, fmt.Errorf("%s: %w", where, ErrNoCA)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s: the CA certificate holds no PEM certificate", where)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	switch {
	case len(cert) == 0 && len(key) == 0:
	case len(cert) == 0 || len(key) == 0:
		return nil, fmt.Errorf("%s: a client certificate and its key must be given together", where)
	default:
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s: client certificate: %w", where, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// NewClient returns a Docker API client for c, negotiating the API version
// with the daemon on first use. Nothing is contacted yet.
func NewClient(c HostConfig) (*client.Client, error) {
	r, err := c.resolve()
	if err != nil {
		return nil, err
	}
	var opts []client.Opt // the API version is negotiated on first use
	switch {
	case r.sshURL != nil:
		opts = append(opts,
			client.WithHTTPClient(&http.Client{Transport: &http.Transport{}}),
			client.WithHost("http://docker.invalid"),
			client.WithDialContext(func(ctx context.Context, _, _ string) (net.Conn, error) {
				return dialSSH(ctx, r.sshURL)
			}))
	case r.tls != nil:
		opts = append(opts,
			client.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: r.tls}}),
			client.WithHost(strings.Replace(r.host, "https://", "tcp://", 1)))
	default:
		opts = append(opts, client.WithHost(r.host))
	}
	if c.Requests != nil {
		opts = append(opts, client.WithHTTPRequestHook(c.Requests.hook))
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("docker client for %s: %w", r.host, err)
	}
	return cli, nil
}

// Check validates c with the environment applied, without contacting the
// daemon: the host's form and the TLS material.
func (c HostConfig) Check() error {
	_, err := c.resolve()
	return err
}
