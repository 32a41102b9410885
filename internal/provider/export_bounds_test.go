package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// sparseSize is the size of the sparse file the bound tests export: 2 GiB
// of holes between "head" and "tail".
const sparseSize = 2<<30 + 4

// sparseExportBody makes out/big.img (sparse) and out/data.bin (2 MiB of
// data) and exports the first under max_bytes = 1 MiB to dest, and, with
// tooBig, the second under the same bound to dest2.
func sparseExportBody(dest, dest2 string, tooBig bool) string {
	body := fmt.Sprintf(`
resource "sandbox_command" "make" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p out && printf head > out/big.img && truncate -s 2147483648 out/big.img && printf tail >> out/big.img && head -c 2097152 /dev/urandom > out/data.bin"
}

resource "sandbox_export" "sparse" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["out/big.img"]
  destination  = %q
  max_bytes    = 1048576
  triggers     = { run = sandbox_command.make.id }
  timeouts { create = "10m" }
}
`, dest)
	if tooBig {
		body += fmt.Sprintf(`
resource "sandbox_export" "too_big" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["out/*"]
  destination  = %q
  max_bytes    = 1048576
  triggers     = { run = sandbox_command.make.id }
}
`, dest2)
	}
	return body
}

// checkSparseCopy checks that the exported sparse file has its size, its
// data where it was, and no more than 64 MiB of blocks.
func checkSparseCopy(dest string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		p := filepath.Join(dest, "out/big.img")
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return err
		}
		if st.Size != sparseSize || st.Blocks*512 > 64<<20 {
			return fmt.Errorf("%s is %d bytes in %d bytes of blocks; want %d bytes in at most 64 MiB", p, st.Size, st.Blocks*512, sparseSize)
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		head, mid, tail := make([]byte, 4), make([]byte, 4), make([]byte, 4)
		_, _ = f.ReadAt(head, 0)
		_, _ = f.ReadAt(mid, 1<<30)
		_, _ = f.ReadAt(tail, sparseSize-4)
		if string(head) != "head" || string(mid) != "\x00\x00\x00\x00" || string(tail) != "tail" {
			return fmt.Errorf("%s holds %q ... %q ... %q", p, head, mid, tail)
		}
		return nil
	}
}

// checkNothingIn checks that dir holds no file.
func checkNothingIn(dir string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got, err := listTree(dir); err != nil && !os.IsNotExist(err) || len(got) != 0 {
			return fmt.Errorf("%s holds %v (%w) after the failed export", dir, got, err)
		}
		return nil
	}
}

func sparseSteps(config func(tooBig bool) string, dest, dest2 string, extra resource.TestCheckFunc) []resource.TestStep {
	return []resource.TestStep{
		{Config: config(false), Check: resource.ComposeTestCheckFunc(checkSparseCopy(dest), extra)},
		{Config: config(false), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		{
			Config:      config(true),
			ExpectError: regexp.MustCompile(`(?s)export stopped at "out/data.bin".*more than max_bytes =\s+1048576`),
		},
		{Config: config(false), Check: checkNothingIn(dest2)},
	}
}

// A 2 GiB sparse file in a workspace whose disk is 64 MiB is exported in
// at most 64 MiB of host blocks, within max_bytes = 1 MiB; 2 MiB of data
// fails at max_bytes, leaving nothing behind.
func TestAccExportBounds_sparseDocker(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	dest, dest2 := filepath.Join(t.TempDir(), "results"), filepath.Join(t.TempDir(), "too-big")
	config := func(tooBig bool) string {
		return env.configDocker(`disk = "64m"`, "", sparseExportBody(dest, dest2, tooBig))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		CheckDestroy:             resource.ComposeTestCheckFunc(env.checkGone, checkNothingIn(dest), checkNothingIn(dest2)),
		Steps: sparseSteps(config, dest, dest2,
			env.expectSh("du -k /workspace/out/big.img | cut -f1; stat -c %s /workspace/out/big.img", "8\n"+strconv.Itoa(sparseSize))),
	})
}

// The same on a local workspace, with the bounds taken from the provider
// block: max_files = 1 there refuses an export of two files before it
// writes anything.
func TestAccExportBounds_sparseLocal(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	dest, dest2 := filepath.Join(t.TempDir(), "results"), filepath.Join(t.TempDir(), "too-big")
	config := func(tooBig bool) string { return env.config(sparseExportBody(dest, dest2, tooBig)) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             resource.ComposeTestCheckFunc(checkNothingIn(dest), checkNothingIn(dest2)),
		Steps: append(sparseSteps(config, dest, dest2, func(*terraform.State) error { return nil }), resource.TestStep{
			Config: fmt.Sprintf(`
provider "sandbox" {
  local_base_dir = %q
  max_files      = 1
}

resource "sandbox_workspace" "ws" {
  local {}
}
%s`, env.base, sparseExportBody(dest, dest2, true)),
			ExpectError: regexp.MustCompile(`(?s)export stopped at "out/data.bin".*more than max_files =\s+1`),
			Check:       checkNothingIn(dest2),
		}),
	})
}

// 20,000 files leave a Docker workspace in one archive.
func TestAccExportBounds_dockerManyFiles(t *testing.T) {
	t.Parallel()
	const n = 20000
	env := newDockerEnv(t)
	dest := filepath.Join(t.TempDir(), "many")
	var start time.Time
	var want int64
	for i := range n {
		want += int64(len(fmt.Sprintf("file %d\n", i)))
	}
	config := env.config("", fmt.Sprintf(`
resource "sandbox_command" "make" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "i=0; while [ $i -lt 20 ]; do mkdir -p out/d$i; i=$((i+1)); done; i=0; while [ $i -lt %d ]; do echo \"file $i\" > out/d$((i/1000))/f$i.txt; i=$((i+1)); done"
}

resource "sandbox_export" "many" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["out/**"]
  destination  = %q
  triggers     = { run = sandbox_command.make.id }
}
`, n, dest))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             resource.ComposeTestCheckFunc(env.checkGone, checkNothingIn(dest)),
		Steps: []resource.TestStep{{
			PreConfig: func() { start = time.Now() },
			Config:    config,
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("sandbox_export.many", "files.%", strconv.Itoa(n)),
				resource.TestCheckResourceAttr("sandbox_export.many", "files.out/d7/f7123.txt", sha("file 7123\n")),
				env.expectSh("ls /workspace/out/d19 | wc -l", "1000"),
				func(*terraform.State) error {
					t.Logf("%d files exported in %s (apply, including the workspace and the command)", n, time.Since(start))
					var count, total int64
					err := filepath.Walk(dest, func(p string, fi os.FileInfo, err error) error {
						if err == nil && fi.Mode().IsRegular() {
							count, total = count+1, total+fi.Size()
						}
						return err
					})
					if err != nil || count != n || total != want {
						return fmt.Errorf("destination holds %d files of %d bytes (%w), want %d of %d", count, total, err, n, want)
					}
					for _, i := range []int{0, 999, 7123, 19999} {
						p := filepath.Join(dest, fmt.Sprintf("out/d%d/f%d.txt", i/1000, i))
						if got := readFileString(p); got != fmt.Sprintf("file %d\n", i) {
							return fmt.Errorf("%s holds %q", p, got)
						}
					}
					return nil
				}),
		}},
	})
}

func readFileString(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}
