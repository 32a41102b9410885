package fakes3

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/need"
)

// RcloneEnv is this process's environment without AWS_CA_BUNDLE, for an
// rclone process. rclone's S3 backend fails every remote when
// AWS_CA_BUNDLE is set ("unable to load custom CA bundle, HTTPClient's
// transport unsupported type"), whatever the endpoint.
func RcloneEnv() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "AWS_CA_BUNDLE=") {
			out = append(out, kv)
		}
	}
	return out
}

// LookRclone returns the path of rclone after checking that rclone and
// fusermount3 are installed. Without them the test fails under CI=true
// (CI must never skip the mount tests) and skips elsewhere, saying how to
// install them.
func LookRclone(t testing.TB) string {
	t.Helper()
	var missing []string
	rclone, err := exec.LookPath("rclone")
	if err != nil {
		missing = append(missing, "rclone")
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		missing = append(missing, "fusermount3")
	}
	if len(missing) > 0 {
		unavailable(t, strings.Join(missing, " and ")+" not found in PATH (Debian: apt-get install rclone fuse3; `make test-deps` installs them as root)")
	}
	return rclone
}

// RequireFUSE checks that this process can open /dev/fuse, which a FUSE
// mount on this machine needs; like LookRclone, it fails under CI=true and
// skips elsewhere.
func RequireFUSE(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		unavailable(t, "FUSE is unavailable here: "+err.Error())
		return
	}
	_ = f.Close()
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	need.Unavailable(t, "storage-mount tests", why)
}

// WriteRcloneConfig writes RcloneConfig(remote) to an owner-only file in
// a temporary directory of the test and returns its path.
func (s *Server) WriteRcloneConfig(t testing.TB, remote string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rclone.conf")
	if err := os.WriteFile(path, []byte(s.RcloneConfig(remote)), 0o600); err != nil {
		t.Fatalf("fakes3: write rclone config: %v", err)
	}
	return path
}

// VolumeOptions are the driver options of a Docker volume served by
// `rclone serve docker` that reaches the server's bucket, as given to
// `docker volume create -d <driver> -o key=value ...`.
func (s *Server) VolumeOptions() map[string]string {
	return map[string]string{
		"type":                 "s3",
		"s3-provider":          "Other",
		"s3-endpoint":          s.Endpoint,
		"s3-access-key-id":     s.AccessKeyID,
		"s3-secret-access-key": s.SecretAccessKey,
		"path":                 s.Bucket,
	}
}
