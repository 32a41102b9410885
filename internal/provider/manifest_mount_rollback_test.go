package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// TestAccManifestMount_failedCreateUnmounts: a manifest whose first mount
// entry mounts and whose second fails at apply (its endpoint refuses
// connections, which only the listing after the mount finds) fails naming
// the second entry and leaves nothing behind: no rclone process serves
// either mount path, no generated rclone config remains, the first mount's
// directory is not mounted and the file the create wrote is removed. With
// the endpoint fixed the same configuration applies. An update that fails
// the same way after mounting a new entry keeps that mount recorded: the
// destroy that follows unmounts it and leaves the workspace empty.
func TestAccManifestMount_failedCreateUnmounts(t *testing.T) {
	t.Parallel()
	srv := fidelityMountServer(t)
	env := newTestEnv(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	mountAt := func(name, endpoint string) string {
		return fmt.Sprintf(`, %q: {"type": "s3_mount", "bucket": %q, "endpoint_url": %q, "s3_provider": "Other",
  "mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}}`, name, srv.Bucket, endpoint)
	}
	entries := func(endpoint string) string { return s3ManifestEntry(srv, "") + mountAt("data2", endpoint) }
	creds := func(names ...string) string {
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "    %s = { access_key_id = var.key_id, secret_access_key = var.secret }\n", n)
		}
		return "mount_credentials_wo = {\n" + b.String() + "  }\n  credentials_wo_version = 1"
	}
	refused := fmt.Sprintf("http://127.0.0.1:%d", freePort(t)) // nothing listens there
	left := func(*terraform.State) error {
		for _, name := range []string{"data", "data1", "data2"} {
			dir := filepath.Join(env.wsRoot(), name)
			if ok, fs, _ := fakes3.Mounted(dir); ok {
				return fmt.Errorf("%s is still mounted (%s)", dir, fs)
			}
			if pids := fakes3.RclonePIDs(dir); len(pids) > 0 {
				return fmt.Errorf("rclone processes %v still serve %s", pids, dir)
			}
		}
		if confs, _ := rcloneConfigs(t, env.base); len(confs) > 0 {
			return fmt.Errorf("generated rclone configs survived: %v", confs)
		}
		left, err := os.ReadDir(env.wsRoot())
		if err != nil || len(left) != 0 {
			return fmt.Errorf("left in the workspace: %v (%w)", dirNames(left), err)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: env.config(s3KeyVariables), ConfigVariables: s3Vars(srv)}, // the workspace exists
			{
				Config: manifestMountConfig(env, entries(refused), creds("data", "data2")), ConfigVariables: s3Vars(srv),
				ExpectError: errReAll(`Applying the manifest failed|entry "data2" (s3_mount)|does not answer`),
			},
			{Config: env.config(s3KeyVariables), ConfigVariables: s3Vars(srv), Check: left},
			{
				Config: manifestMountConfig(env, entries(srv.Endpoint), creds("data", "data2")), ConfigVariables: s3Vars(srv),
				Check: resource.ComposeTestCheckFunc(
					checkMountedFiles(env, fidelityMountFiles),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data.mounted", "true"),
					resource.TestCheckResourceAttr("sandbox_manifest.m", "entries.data2.mounted", "true"),
					func(*terraform.State) error {
						if ok, _, err := fakes3.Mounted(filepath.Join(env.wsRoot(), "data2")); !ok {
							return fmt.Errorf("data2 is not mounted after the fixed apply (%w)", err)
						}
						return expectFile(filepath.Join(env.wsRoot(), "notes.txt"), "n", 0o755)
					},
				),
			},
			{
				// A failed update keeps what it mounted (data1) recorded, so
				// the destroy below unmounts it.
				Config: manifestMountConfig(env, s3ManifestEntry(srv, "")+mountAt("data1", srv.Endpoint)+mountAt("data2", refused),
					creds("data", "data1", "data2")),
				ConfigVariables: s3Vars(srv),
				ExpectError:     errReAll(`Applying the manifest failed|entry "data2" (s3_mount)|does not answer`),
			},
			{
				PreConfig: func() {
					if ok, _, err := fakes3.Mounted(filepath.Join(env.wsRoot(), "data1")); !ok {
						t.Fatalf("positive control: the failed update did not mount data1 (%v)", err)
					}
				},
				Config: env.config(s3KeyVariables), ConfigVariables: s3Vars(srv), Check: left,
			},
		},
	})
}

func dirNames(entries []os.DirEntry) []string {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}
