package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// exportBody has a command write results (and a symlink in output/ to
// hostTarget) and exports output/** to dest.
func exportBody(hostTarget, dest string) string {
	return fmt.Sprintf(`
resource "sandbox_command" "run" {
  workspace_id = sandbox_workspace.ws.id
  shell        = "mkdir -p output/sub logs && echo a > output/a.txt && chmod 0644 output/a.txt && echo '{\"b\":1}' > output/sub/b.json && chmod 0640 output/sub/b.json && echo log > logs/run.log && echo x > other.txt && ln -s %s output/host && ln -s %s output/hostdir"
}

resource "sandbox_export" "results" {
  workspace_id = sandbox_workspace.ws.id
  paths        = ["output/**"]
  destination  = %q
  triggers     = { run = sandbox_command.run.id }
}
`, hostTarget, filepath.Dir(hostTarget), dest)
}

// listTree lists the regular files and symlinks below dir, with content.
func listTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.Mode()&os.ModeSymlink != 0 {
			out[rel] = "symlink"
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = fmt.Sprintf("%s %o", b, fi.Mode().Perm())
		return err
	})
	return out, err
}

func checkExported(dest string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		got, err := listTree(dest)
		if err != nil {
			return err
		}
		want := map[string]string{"foreign.txt": "kept\n 644", "output/a.txt": "a\n 644", "output/sub/b.json": "{\"b\":1}\n 640"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("destination holds %v, want %v", got, want)
		}
		a := s.RootModule().Resources["sandbox_export.results"].Primary.Attributes
		if a["files.%"] != "2" || a["files.output/a.txt"] != sha("a\n") {
			return fmt.Errorf("files in state: %v", a)
		}
		return nil
	}
}

func exportSteps(t *testing.T, dest string, config string, check resource.TestCheckFunc) []resource.TestStep {
	return []resource.TestStep{
		{
			PreConfig: func() {
				must(t, os.MkdirAll(dest, 0o755))
				must(t, os.WriteFile(filepath.Join(dest, "foreign.txt"), []byte("kept\n"), 0o644))
				must(t, os.Chmod(filepath.Join(dest, "foreign.txt"), 0o644))
			},
			Config: config,
			Check:  resource.ComposeTestCheckFunc(check, checkExported(dest)),
		},
		{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		{
			// An exported file removed on the host is exported again.
			PreConfig: func() { must(t, os.Remove(filepath.Join(dest, "output/a.txt"))) },
			Config:    config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("sandbox_export.results", plancheck.ResourceActionDestroyBeforeCreate)}},
			Check: checkExported(dest),
		},
		{
			// An exported file edited on the host is refused at plan, and kept.
			PreConfig:   func() { must(t, os.WriteFile(filepath.Join(dest, "output/a.txt"), []byte("EDITED\n"), 0o644)) },
			Config:      config,
			ExpectError: regexp.MustCompile(`(?s)Destination holds files.*already holds output/a.txt,.*move it away`),
		},
	}
}

// exportConflictCase has an export meet a host file it did not write: the
// apply fails, and neither it nor destroy touch the destination.
func exportConflictCase(t *testing.T, config func(dest string) string, checkGone resource.TestCheckFunc) resource.TestCase {
	dest := filepath.Join(t.TempDir(), "precious")
	want := map[string]string{"output/a.txt": "MY PRECIOUS HOST DATA\n 600"}
	return resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy: resource.ComposeTestCheckFunc(checkGone, func(*terraform.State) error {
			if got, err := listTree(dest); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("destination holds %v (%w), want %v", got, err, want)
			}
			return nil
		}),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				must(t, os.MkdirAll(filepath.Join(dest, "output"), 0o755))
				must(t, os.WriteFile(filepath.Join(dest, "output/a.txt"), []byte("MY PRECIOUS HOST DATA\n"), 0o600))
			},
			Config:      config(dest),
			ExpectError: regexp.MustCompile(`(?s)already holds output/a.txt,.*move it away, or choose another destination`),
		}},
	}
}

// exportDestroyed checks that destroy removed exactly the exported files
// still as written (the edited output/a.txt stays) and the directory it
// created and emptied.
func exportDestroyed(dest string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := listTree(dest)
		if err != nil {
			return err
		}
		want := map[string]string{"foreign.txt": "kept\n 644", "output/a.txt": "EDITED\n 644"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("after destroy the destination holds %v, want %v", got, want)
		}
		if _, err := os.Stat(filepath.Join(dest, "output/sub")); !os.IsNotExist(err) {
			return fmt.Errorf("the emptied output/sub directory was left: %w", err)
		}
		return nil
	}
}

func TestAccExport_local(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	secret := filepath.Join(t.TempDir(), "host-secret.txt")
	must(t, os.WriteFile(secret, []byte("HOST SECRET\n"), 0o644))
	dest := filepath.Join(t.TempDir(), "results")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             exportDestroyed(dest),
		Steps:                    exportSteps(t, dest, env.config(exportBody(secret, dest)), func(*terraform.State) error { return nil }),
	})
	resource.Test(t, exportConflictCase(t, func(d string) string { return env.config(exportBody(secret, d)) },
		func(*terraform.State) error { return nil }))
}

func TestAccExport_docker(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	dest := filepath.Join(t.TempDir(), "results")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             resource.ComposeTestCheckFunc(env.checkGone, exportDestroyed(dest)),
		Steps: exportSteps(t, dest, env.config("", exportBody("/etc/passwd", dest)),
			env.expectSh("cat /workspace/output/a.txt; readlink /workspace/output/host", "a\n/etc/passwd")),
	})
	resource.Test(t, exportConflictCase(t, func(d string) string { return env.config("", exportBody("/etc/passwd", d)) }, env.checkGone))
}
