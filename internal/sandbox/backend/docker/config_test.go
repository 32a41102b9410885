package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func selfSigned(t *testing.T) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}))
}

func TestHostConfig_tls(t *testing.T) {
	t.Setenv("DOCKER_HOST", "")
	t.Setenv("DOCKER_CERT_PATH", "")
	t.Setenv("DOCKER_TLS_VERIFY", "")
	cert, key := selfSigned(t)

	// Client material without a CA never turns verification off.
	_, err := HostConfig{DockerConfig: spec.DockerConfig{Host: "tcp://127.0.0.1:2376", CertPEM: cert, KeyPEM: key}}.resolve()
	if !errors.Is(err, ErrNoCA) {
		t.Fatalf("no CA: %v", err)
	}
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "cert.pem"), []byte(cert), 0o600))
	must(os.WriteFile(filepath.Join(dir, "key.pem"), []byte(key), 0o600))
	t.Setenv("DOCKER_CERT_PATH", dir)
	if _, err := (HostConfig{DockerConfig: spec.DockerConfig{Host: "tcp://127.0.0.1:2376"}}).resolve(); !errors.Is(err, ErrNoCA) {
		t.Fatalf("DOCKER_CERT_PATH without ca.pem: %v", err)
	}
	must(os.WriteFile(filepath.Join(dir, "ca.pem"), []byte(cert), 0o600))
	r, err := HostConfig{DockerConfig: spec.DockerConfig{Host: "tcp://127.0.0.1:2376"}}.resolve()
	if err != nil || r.tls == nil || r.tls.InsecureSkipVerify || len(r.tls.Certificates) != 1 || r.tls.RootCAs == nil {
		t.Fatalf("cert path: %+v %v", r.tls, err)
	}
	if _, err := (HostConfig{DockerConfig: spec.DockerConfig{Host: "tcp://127.0.0.1:2376", CAPEM: cert, CertPEM: cert}}).resolve(); err == nil || !strings.Contains(err.Error(), "together") {
		t.Fatalf("cert without key: %v", err)
	}
	// TLS material does not apply to a unix socket.
	if r, err := (HostConfig{DockerConfig: spec.DockerConfig{Host: "unix:///var/run/docker.sock"}}).resolve(); err != nil || r.tls != nil {
		t.Fatalf("unix: %+v %v", r, err)
	}
	if _, err := NewClient(HostConfig{DockerConfig: spec.DockerConfig{Host: "tcp://127.0.0.1:2376", CAPEM: cert}}); err != nil {
		t.Fatalf("client with a CA: %v", err)
	}
}

func TestHostConfig_hosts(t *testing.T) {
	t.Setenv("DOCKER_HOST", "ssh://me@build.example:2222")
	t.Setenv("DOCKER_CERT_PATH", "")
	r, err := HostConfig{}.resolve()
	if err != nil || r.sshURL == nil {
		t.Fatalf("ssh from the environment: %+v %v", r, err)
	}
	want := []string{"-o", "ConnectTimeout=30", "-l", "me", "-p", "2222", "--", "build.example", "docker", "system", "dial-stdio"}
	if got := sshArgs(r.sshURL); !reflect.DeepEqual(got, want) {
		t.Fatalf("ssh args %q", got)
	}
	u, _ := url.Parse("ssh://host")
	if got := sshArgs(u); !reflect.DeepEqual(got, []string{"-o", "ConnectTimeout=30", "--", "host", "docker", "system", "dial-stdio"}) {
		t.Fatalf("ssh args %q", got)
	}
	for _, bad := range []string{"ftp://x", "ssh://host/path", "not a url"} {
		if _, err := (HostConfig{DockerConfig: spec.DockerConfig{Host: bad}}).resolve(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	t.Setenv("DOCKER_HOST", "")
	if r, _ := (HostConfig{}).resolve(); r.host != "unix:///var/run/docker.sock" {
		t.Fatalf("default host %q", r.host)
	}
}

func TestSpecValidate(t *testing.T) {
	err := Spec{Docker: spec.Docker{Image: "x", NetworkMode: "none", ExposedPorts: []int{80}}}.Validate()
	if err == nil || err.Error() != spec.NetworkNoneMessage {
		t.Fatalf("none with ports: %v", err)
	}
	if err := (Spec{Docker: spec.Docker{Image: "x", PullPolicy: "sometimes"}}).Validate(); err == nil {
		t.Fatal("bad pull policy accepted")
	}
}
