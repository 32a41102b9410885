package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planBlock returns the lines a plan prints for the resource addr, from
// its "# addr ..." comment to its closing brace; the test fails when the
// plan does not show it.
func planBlock(t *testing.T, out, addr string) []string {
	t.Helper()
	var block []string
	for _, line := range strings.Split(out, "\n") {
		if block == nil && strings.HasPrefix(strings.TrimSpace(line), "# "+addr+" ") {
			block = []string{line}
			continue
		}
		if block != nil {
			block = append(block, line)
			if line == "    }" {
				return block
			}
		}
	}
	t.Fatalf("the plan shows no complete block for %s:\n%s", addr, out)
	return nil
}

// expectPlanLines fails unless the plan's block for addr has at most max
// lines and has a line containing each of want.
func expectPlanLines(t *testing.T, block []string, max int, want ...string) {
	t.Helper()
	text := strings.Join(block, "\n")
	t.Logf("%s: %d plan lines (at most %d)", strings.TrimSpace(block[0]), len(block), max)
	if len(block) > max {
		t.Errorf("the plan shows %d lines for the resource, want at most %d:\n%s", len(block), max, text)
	}
	for _, w := range want {
		found := false
		for _, line := range block {
			found = found || strings.Contains(line, w)
		}
		if !found {
			t.Errorf("the plan does not show %q:\n%s", w, text)
		}
	}
}

const readableDirFiles = 2000

// writeReadableTree writes readableDirFiles small files under dir/src, in
// 20 directories.
func writeReadableTree(t *testing.T, dir string) {
	t.Helper()
	for i := range readableDirFiles {
		p := filepath.Join(dir, "src", fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d.txt", i))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(fmt.Sprintf("file %d\n", i)), 0o644))
	}
}

// copyDirConfig is more, then a local workspace ws and a sandbox_local_dir
// d copying src to copy, with extra in d.
func copyDirConfig(more, extra string) string {
	return requiredSandbox + more + `
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_local_dir" "d" {
  workspace_id = sandbox_workspace.ws.id
  path         = "copy"
  source       = "src"
  ` + extra + `
}
`
}

// TestAccLocalDir_readablePlans: a 2,000-file sandbox_local_dir plans in at
// most 32 lines (counts, bytes, tree digest, the owner it takes from the
// workspace root; no per-file map), an edited
// source file plans in at most 30 lines naming it, drift in the workspace
// (a file edited, a mode changed, a file added) plans naming each and is
// repaired by the apply, and record_files still gives every per-file
// digest, as an update rather than a replacement.
func TestAccLocalDir_readablePlans(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeReadableTree(t, dir)
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(copyDirConfig("", "")), 0o644))
	c := newCLIRun(t, dir)
	c.run("ws.log", "apply", "-input=false", "-auto-approve", "-no-color", "-target=sandbox_workspace.ws")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })

	out := c.run("plan-create.log", "plan", "-input=false", "-no-color")
	block := planBlock(t, out, "sandbox_local_dir.d")
	expectPlanLines(t, block, 32, fmt.Sprintf("= %d", readableDirFiles), "+ tree_sha256", `+ owner`)
	for _, line := range block {
		if strings.Contains(line, "f0001.txt") || strings.Contains(line, " files ") || strings.Contains(line, "file_permissions") {
			t.Errorf("the creation plan lists files: %q", line)
		}
	}
	c.run("apply-create.log", "apply", "-input=false", "-auto-approve", "-no-color")
	if code := c.exitCode("plan-same.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan after the apply exited %d, want no changes:\n%s", code, c.last)
	}
	st := readState(t, filepath.Join(dir, "terraform.tfstate"))
	root := st.attr(t, "sandbox_local_dir.d", "absolute_path")
	if _, ok := stateAttrs(t, st, "sandbox_local_dir.d")["files"].(map[string]any); ok {
		t.Errorf("state records files without record_files")
	}

	// One source file edited: a short plan naming it.
	must(t, os.WriteFile(filepath.Join(dir, "src", "d05", "f0105.txt"), []byte("file 105, edited\n"), 0o644))
	out = c.run("plan-edit.log", "plan", "-input=false", "-no-color")
	expectPlanLines(t, planBlock(t, out, "sandbox_local_dir.d"), 30, `+ "modify d05/f0105.txt",`)
	c.run("apply-edit.log", "apply", "-input=false", "-auto-approve", "-no-color")
	must(t, expectFile(filepath.Join(root, "d05", "f0105.txt"), "file 105, edited\n", 0o644))

	// Drift in the workspace: each change is named and repaired.
	must(t, os.WriteFile(filepath.Join(root, "d01", "f0001.txt"), []byte("tampered\n"), 0o644))
	must(t, os.Chmod(filepath.Join(root, "d02", "f0002.txt"), 0o600))
	must(t, os.WriteFile(filepath.Join(root, "d03", "extra.txt"), []byte("junk\n"), 0o644))
	out = c.run("plan-drift.log", "plan", "-input=false", "-no-color")
	expectPlanLines(t, planBlock(t, out, "sandbox_local_dir.d"), 30,
		`"modify d01/f0001.txt",`, `"chmod d02/f0002.txt 0644",`, `"remove d03/extra.txt",`)
	c.run("apply-drift.log", "apply", "-input=false", "-auto-approve", "-no-color")
	must(t, expectFile(filepath.Join(root, "d01", "f0001.txt"), "file 1\n", 0o644))
	must(t, expectFile(filepath.Join(root, "d02", "f0002.txt"), "file 2\n", 0o644))
	if _, err := os.Lstat(filepath.Join(root, "d03", "extra.txt")); !os.IsNotExist(err) {
		t.Errorf("extra.txt is still in the copy after the apply: %v", err)
	}
	// The same mode drift again is shown again.
	must(t, os.Chmod(filepath.Join(root, "d02", "f0002.txt"), 0o600))
	out = c.run("plan-drift-again.log", "plan", "-input=false", "-no-color")
	expectPlanLines(t, planBlock(t, out, "sandbox_local_dir.d"), 30, `+ "chmod d02/f0002.txt 0644",`)
	c.run("apply-drift-again.log", "apply", "-input=false", "-auto-approve", "-no-color")
	must(t, expectFile(filepath.Join(root, "d02", "f0002.txt"), "file 2\n", 0o644))

	// Opting in records every per-file digest and mode, in place.
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(copyDirConfig("", "record_files = true")), 0o644))
	out = c.run("plan-record.log", "plan", "-input=false", "-no-color")
	if !strings.Contains(out, "sandbox_local_dir.d will be updated in-place") {
		t.Fatalf("record_files = true does not plan an in-place update:\n%s", strings.Join(planBlock(t, out, "sandbox_local_dir.d"), "\n"))
	}
	c.run("apply-record.log", "apply", "-input=false", "-auto-approve", "-no-color")
	attrs := stateAttrs(t, readState(t, filepath.Join(dir, "terraform.tfstate")), "sandbox_local_dir.d")
	files, _ := attrs["files"].(map[string]any)
	modes, _ := attrs["file_permissions"].(map[string]any)
	if len(files) != readableDirFiles || files["d05/f0105.txt"] != sha("file 105, edited\n") || modes["d02/f0002.txt"] != "0644" {
		t.Errorf("record_files: %d files, d05/f0105.txt = %v, d02/f0002.txt mode %v", len(files), files["d05/f0105.txt"], modes["d02/f0002.txt"])
	}
	if code := c.exitCode("plan-recorded.log", "plan", "-input=false", "-detailed-exitcode", "-no-color"); code != 0 {
		t.Fatalf("plan after recording files exited %d, want no changes:\n%s", code, c.last)
	}
}

// stateAttrs returns the attributes of the one instance of addr in st.
func stateAttrs(t *testing.T, st tfState, addr string) map[string]any {
	t.Helper()
	for _, r := range st.Resources {
		if r.Type+"."+r.Name == addr && len(r.Instances) == 1 {
			return r.Instances[0].Attributes
		}
	}
	t.Fatalf("no %s in state", addr)
	return nil
}

// TestAccFile_readablePlan: a one-line edit of a 200-line sandbox_file
// content plans in at most 20 lines besides the unchanged lines of
// `content` itself, which Terraform and OpenTofu both print in full for
// any change of a multi-line string; manifest_entry, which repeats the
// content, is one line.
func TestAccFile_readablePlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	writeContent := func() {
		must(t, os.WriteFile(filepath.Join(dir, "content.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	}
	writeContent()
	must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+`
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_file" "f" {
  workspace_id = sandbox_workspace.ws.id
  path         = "notes.txt"
  permissions  = "0644"
  content      = file("content.txt")
}
`), 0o644))
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })

	lines[100] = "line 100, edited"
	writeContent()
	block := planBlock(t, c.run("plan.log", "plan", "-input=false", "-no-color"), "sandbox_file.f")
	var own []string // the block without the unchanged lines of content
	inContent := false
	for _, line := range block {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "~ content ") && strings.HasSuffix(trimmed, "<<-EOT"):
			inContent = true
		case inContent && trimmed == "EOT":
			inContent = false
		case inContent && !strings.HasPrefix(trimmed, "+ ") && !strings.HasPrefix(trimmed, "- "):
			continue
		}
		own = append(own, line)
	}
	expectPlanLines(t, own, 20, "- line 100", "+ line 100, edited", "~ manifest_entry       = (sensitive value)")
	c.run("apply-edit.log", "apply", "-input=false", "-auto-approve", "-no-color")
	root := readState(t, filepath.Join(dir, "terraform.tfstate")).attr(t, "sandbox_file.f", "absolute_path")
	must(t, expectFile(root, strings.Join(lines, "\n")+"\n", 0o644))
}
