package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

// A destroy whose unmount keeps failing (the mount is in use) is an error
// after the retries that names what is left: the mount point and the key
// file, both still there; once the mount is free, destroy removes them.
func TestAccS3Mount_unmountFailureReported(t *testing.T) {
	fakes3.LookRclone(t)
	fakes3.RequireFUSE(t)
	srv := fakes3.Start(t, "bucket", map[string]string{"a.txt": "a\n"})
	env := newTestEnv(t)
	t.Cleanup(func() { fakes3.UnmountAllUnder(t, env.base) })
	busy := fakes3.BusyUnmounts(t)
	dir := ""
	mountDir := func() string {
		if dir == "" {
			dir = filepath.Join(env.wsRoot(), "data")
		}
		return dir
	}
	cfg := s3MountConfig(env, srv, "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{Config: cfg, ConfigVariables: s3Vars(srv)},
			{
				PreConfig:       func() { busy.Set(t, mountDir(), -1) },
				Config:          cfg,
				ConfigVariables: s3Vars(srv),
				Destroy:         true,
				ExpectError: errReAll(`is still mounted after 6 unmount attempts|Device or resource busy|` +
					`config holding the credentials is still at|.sandbox-rclone-config/|sandbox_s3_|.conf|` +
					`fusermount3 -u`),
			},
			{
				// Nothing was removed behind the error: the mount and its
				// config are still there.
				PreConfig: func() {
					if ok, _, _ := fakes3.Mounted(mountDir()); !ok {
						t.Errorf("the mount is gone although its destroy failed")
					}
					if confs, _ := rcloneConfigs(t, env.base); len(confs) != 1 {
						t.Errorf("rclone configs after the failed destroy: %v", confs)
					}
					if busy.Refused(mountDir()) < 6 {
						t.Errorf("only %d unmounts were refused: the retries did not run", busy.Refused(mountDir()))
					}
					busy.Set(t, mountDir(), 0)
				},
				Config:          cfg,
				ConfigVariables: s3Vars(srv),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if confs, _ := rcloneConfigs(t, env.base); len(confs) > 0 {
				return fmt.Errorf("rclone configs survived destroy: %v", confs)
			}
			if ok, _, _ := fakes3.Mounted(dir); ok {
				return fmt.Errorf("%s is still mounted after destroy", dir)
			}
			if pids := fakes3.RclonePIDs(dir); len(pids) > 0 {
				return fmt.Errorf("rclone processes %v survived destroy", pids)
			}
			return nil
		},
	})
}
