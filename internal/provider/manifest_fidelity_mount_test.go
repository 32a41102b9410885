package provider

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// The mount part of the fidelity suite: an s3_mount of the in-memory S3
// server at "data", as a manifest entry (its keys in mount_credentials_wo)
// and as sandbox_s3_mount (its keys in *_wo attributes).

// fidelityGenerated is the directory where the rclone pattern writes its
// config, one subdirectory per session id (random, so left out of the
// listings; the mount tests check it).
const fidelityGenerated = ".sandbox-rclone-config"

var fidelityMountFiles = map[string]string{"hello.txt": "hello from the bucket\n", "dir/nested.txt": "nested object\n"}

// fidelityMountServer starts the S3 server with the bucket's files; rclone
// and FUSE are needed (a failure under CI=true).
func fidelityMountServer(t *testing.T) *fakes3.Server {
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	return fakes3.Start(t, "bucket", fidelityMountFiles)
}

// fidelityMountEntry is the manifest's s3_mount entry, read-only as the
// Python SDK's default says (written out here).
func fidelityMountEntry(srv *fakes3.Server) string {
	return fmt.Sprintf(`
  "data": {"type": "s3_mount", "bucket": %q, "endpoint_url": %q, "s3_provider": "Other", "read_only": true,
    "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone", "mode": "fuse"}}},`, srv.Bucket, srv.Endpoint)
}

// fidelityMountCredentials are sandbox_manifest's arguments for the entry.
const fidelityMountCredentials = `mount_credentials_wo   = { data = { access_key_id = var.key_id, secret_access_key = var.secret } }
  credentials_wo_version = 1`

// fidelityMountResource is the same mount as sandbox_s3_mount (the rclone
// pattern's default mode is fuse), and the variables holding the keys.
func fidelityMountResource(srv *fakes3.Server) string {
	return s3KeyVariables + s3InContainerMount(srv)
}

// testUmask is the umask TestMain sets, which a mount helper run on the
// host by a local workspace inherits.
const testUmask os.FileMode = 0o077

// fidelityMountWant is the mount as the Python SDK's rclone pattern shows
// it (the same `rclone mount` command line, no mode flags): the bucket's
// objects, keys with a "/" as directories; rclone's default modes
// (directories 0777, files 0666) less the helper's umask, and the helper's
// group (root's).
func fidelityMountWant(umask os.FileMode) []string {
	sum := func(b string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(b))) }
	dir, file := (os.ModeDir | 0o777&^umask).String(), (0o666 &^ umask).String()
	return []string{
		"./data " + dir + " 0",
		"./data/dir " + dir + " 0",
		"./data/dir/nested.txt " + file + " 0 " + sum(fidelityMountFiles["dir/nested.txt"]),
		"./data/hello.txt " + file + " 0 " + sum(fidelityMountFiles["hello.txt"]),
	}
}

// mountWritesNone checks that the bucket saw no write and that the
// manifest reports its entry mounted.
func mountWritesNone(srv *fakes3.Server) resource.TestCheckFunc {
	return resource.ComposeTestCheckFunc(
		resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data.type", "s3_mount"),
		resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data.mounted", "true"),
		resource.TestCheckNoResourceAttr("sandbox_manifest.m", "files.data/hello.txt"),
		func(*terraform.State) error {
			if n := srv.Writes(); n != 0 {
				return fmt.Errorf("the bucket saw %d writes through read-only mounts", n)
			}
			return nil
		})
}

// localMountReadOnly: the entry says read_only, so in both workspaces a
// write through the mount fails with EROFS and never reaches the server.
func localMountReadOnly(srv *fakes3.Server) resource.TestCheckFunc {
	return resource.ComposeTestCheckFunc(func(s *terraform.State) error {
		for _, ws := range []string{"sandbox_workspace.ws", "sandbox_workspace.ws2"} {
			root, err := rootOf(s, ws)
			if err != nil {
				return err
			}
			err = os.WriteFile(filepath.Join(root, "data", "new.txt"), []byte("x"), 0o644)
			if !errors.Is(err, syscall.EROFS) {
				return fmt.Errorf("%s: a write into the read-only mount gave %w, want EROFS", ws, err)
			}
		}
		return nil
	}, mountWritesNone(srv))
}

// dockerMountReadOnly is localMountReadOnly by exec in both containers,
// with the mount listed read-only in /proc/mounts.
func dockerMountReadOnly(srv *fakes3.Server) resource.TestCheckFunc {
	return resource.ComposeTestCheckFunc(func(s *terraform.State) error {
		for _, ws := range []string{"sandbox_workspace.ws", "sandbox_workspace.ws2"} {
			id := s.RootModule().Resources[ws].Primary.Attributes["container_id"]
			out, err := sh(id, "echo x > /workspace/data/new.txt 2>/dev/null && echo written || echo refused; "+
				"grep -c ' /workspace/data fuse.rclone ro,' /proc/mounts")
			if err != nil {
				return err
			}
			if got := strings.Fields(out); strings.Join(got, " ") != "refused 1" {
				return fmt.Errorf("%s: write and /proc/mounts gave %q, want a refused write and one read-only mount", ws, out)
			}
		}
		return nil
	}, mountWritesNone(srv))
}
