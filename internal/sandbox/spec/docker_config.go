package spec

// DockerConfig says how to reach the Docker daemon: the provider's
// docker_* settings. Empty fields fall back to the standard environment,
// as the docker CLI reads it: DOCKER_HOST, DOCKER_CERT_PATH and
// DOCKER_TLS_VERIFY.
type DockerConfig struct {
	// Host is the daemon address: unix:///path, tcp://host:port or
	// ssh://[user@]host[:port]. Default $DOCKER_HOST, else
	// unix:///var/run/docker.sock.
	Host string
	// CertPath is a directory holding ca.pem, cert.pem and key.pem for a
	// tcp:// daemon. Default $DOCKER_CERT_PATH; when only DOCKER_TLS_VERIFY
	// is set, ~/.docker as the docker CLI does.
	CertPath string
	// CAPEM, CertPEM and KeyPEM are PEM material used instead of CertPath.
	CAPEM, CertPEM, KeyPEM string
}
