package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// testRootWiped deletes the workspace's content out of band (wipe, run in
// the root) while the workspace itself stays: the plan shows every entry
// to be created, the apply re-creates the root when it is gone (mode
// 0755, as at creation) and then the entries, and the plan is clean.
func testRootWiped(t *testing.T, o *outOfBand, wipe string) {
	o.env.writeSource("tree/a.txt", "a\n", 0o644)
	o.env.writeSource("tree/sub/b.txt", "b\n", 0o644)
	cfg := o.config(fmt.Sprintf(typeChangeBody, filepath.Join(o.env.src, "tree")))
	restored := resource.ComposeTestCheckFunc(
		o.expect("stat -c %a .", "755"),
		o.expect("cat conf/f.txt", "v1"),
		o.expect("stat -c %a d", "750"),
		o.expect("cat tree/a.txt tree/sub/b.txt", "a\nb"),
	)
	var creates []plancheck.PlanCheck
	for _, addr := range []string{"sandbox_file.f", "sandbox_dir.d", "sandbox_local_dir.tree"} {
		creates = append(creates, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate))
	}
	o.test(
		resource.TestStep{Config: cfg, Check: resource.ComposeTestCheckFunc(o.capture, restored)},
		resource.TestStep{
			PreConfig:        o.do(wipe),
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: creates},
			Check:            restored,
		},
	)
}

func TestAccDockerWorkspace_rootDeletedInContainer(t *testing.T) {
	t.Parallel()
	testRootWiped(t, dockerOutOfBand(t), "rm -rf /workspace && test ! -e /workspace")
}

func TestAccWorkspace_rootEmptiedOutOfBand(t *testing.T) {
	t.Parallel()
	testRootWiped(t, localOutOfBand(t), "find . -mindepth 1 -delete && test -z \"$(ls -A)\"")
}
