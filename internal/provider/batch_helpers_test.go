package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The batch tests apply batchCount files of one counted resource to one
// workspace through the real CLI at -parallelism=50, so that many entry
// operations of the same workspace are in flight at once; index batchBad
// is given an owner (or group) that passes the plan but that the workspace
// refuses at the apply.
const (
	batchCount = 200
	batchBad   = 137
	batchPar   = "-parallelism=50"
)

// batchContent is the content of file i, as the configuration writes it.
func batchContent(i int) string { return fmt.Sprintf("batch file %03d of %d\n", i, batchCount) }

// batchSpec is how the files are owned: owner for all, except that index
// batchBad gets badOwner instead when set, and badGroup as its group when
// set; dependsOn is the files' depends_on list, if any.
type batchSpec struct {
	owner, badOwner, badGroup, dependsOn string
}

// batchFiles declares the files f/<i>.txt, mode 0640, owned as s says.
func batchFiles(s batchSpec) string {
	badOwner, badGroup, deps := s.owner, "null", ""
	if s.badOwner != "" {
		badOwner = s.badOwner
	}
	if s.badGroup != "" {
		badGroup = strconv.Quote(s.badGroup)
	}
	if s.dependsOn != "" {
		deps = "depends_on   = [" + s.dependsOn + "]"
	}
	return fmt.Sprintf(`
resource "sandbox_file" "f" {
  count        = %d
  workspace_id = sandbox_workspace.ws.id
  path         = "f/${count.index}.txt"
  content      = format("batch file %%03d of %d\n", count.index)
  permissions  = "0640"
  owner        = count.index == %d ? %q : %q
  group        = count.index == %d ? %s : null
  %s
}
`, batchCount, batchCount, batchBad, badOwner, s.owner, batchBad, badGroup, deps)
}

// batchEntry is what the workspace shows of one name in the directory f.
type batchEntry struct {
	mode, owner, sha256 string // octal permission bits, owner, content digest ("-" for a non-file)
}

// batchCase is one workspace kind of the batch tests.
type batchCase struct {
	// config is the whole configuration around the files' body.
	config func(body string) string
	// spec owns the files, one of them wrongly; its owner is what list
	// reports for the others as wantOwner.
	spec      batchSpec
	wantOwner string
	// refused is what the error of the failed file names besides its path.
	refused string
	// list reads back every name of the directory f of the workspace whose
	// state attributes are ws.
	list func(t *testing.T, ws map[string]any) map[string]batchEntry
	// gone checks that the workspace itself is gone after the destroy.
	gone func(t *testing.T, ws map[string]any)
}

// batchState is the state file, read for the files' instances.
type batchState struct {
	Resources []struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Instances []struct {
			IndexKey   any            `json:"index_key"`
			Attributes map[string]any `json:"attributes"`
		} `json:"instances"`
	} `json:"resources"`
}

// readBatchState returns the workspace's attributes and the index keys of
// the sandbox_file.f instances in state, each checked against its path.
func readBatchState(t *testing.T, dir string) (ws map[string]any, files []int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	must(t, err)
	var st batchState
	must(t, json.Unmarshal(b, &st))
	for _, r := range st.Resources {
		for _, in := range r.Instances {
			switch r.Type + "." + r.Name {
			case "sandbox_workspace.ws":
				ws = in.Attributes
			case "sandbox_file.f":
				k, ok := in.IndexKey.(float64)
				if !ok {
					t.Fatalf("sandbox_file.f instance with index key %v", in.IndexKey)
				}
				if p := in.Attributes["path"]; p != fmt.Sprintf("f/%d.txt", int(k)) {
					t.Errorf("sandbox_file.f[%d] has path %v in state", int(k), p)
				}
				files = append(files, int(k))
			}
		}
	}
	if ws == nil {
		t.Fatal("no sandbox_workspace.ws in state")
	}
	slices.Sort(files)
	return ws, files
}

// batchIndexes is 0..batchCount-1 without the indexes in skip.
func batchIndexes(skip ...int) []int {
	var out []int
	for i := range batchCount {
		if !slices.Contains(skip, i) {
			out = append(out, i)
		}
	}
	return out
}

// checkBatchEntries compares what the workspace holds in f with the files
// want: each with its content, mode 0640 and owner, and nothing else.
func checkBatchEntries(t *testing.T, got map[string]batchEntry, want []int, owner string) {
	t.Helper()
	var bad []string
	seen := map[string]bool{}
	for _, i := range want {
		name := fmt.Sprintf("%d.txt", i)
		seen[name] = true
		sum := sha256.Sum256([]byte(batchContent(i)))
		exp := batchEntry{mode: "640", owner: owner, sha256: hex.EncodeToString(sum[:])}
		if e, ok := got[name]; !ok {
			bad = append(bad, "f/"+name+" is missing")
		} else if e != exp {
			bad = append(bad, fmt.Sprintf("f/%s is %+v, want %+v", name, e, exp))
		}
	}
	for name := range got {
		if !seen[name] {
			bad = append(bad, "f/"+name+" should not be there")
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		t.Fatalf("%d of the %d files in the workspace are wrong:\n%s", len(bad), len(want), strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
}

var (
	diagErrorRe = regexp.MustCompile(`(?m)^[│ ]*Error: `)
	diagWithRe  = regexp.MustCompile(`with sandbox_file\.f\[(\d+)\]`)
)

// expectOnlyBadError checks that out holds exactly one error diagnostic,
// about sandbox_file.f[batchBad], containing every string of want, and no
// other file of the batch in its diagnostics.
func expectOnlyBadError(t *testing.T, what, out string, want ...string) {
	t.Helper()
	first := diagErrorRe.FindStringIndex(out)
	if first == nil {
		t.Fatalf("%s: no error in the output:\n%s", what, out)
	}
	diags := out[first[0]:]
	if n := len(diagErrorRe.FindAllString(diags, -1)); n != 1 {
		t.Fatalf("%s: %d errors, want exactly one (for sandbox_file.f[%d]):\n%s", what, n, batchBad, diags)
	}
	var about []string
	for _, m := range diagWithRe.FindAllStringSubmatch(diags, -1) {
		about = append(about, m[1])
	}
	if len(about) != 1 || about[0] != strconv.Itoa(batchBad) {
		t.Fatalf("%s: the diagnostics are about sandbox_file.f%v, want only [%d]:\n%s", what, about, batchBad, diags)
	}
	for _, w := range want {
		if !strings.Contains(diags, w) {
			t.Fatalf("%s: the error does not contain %q:\n%s", what, w, diags)
		}
	}
}

// showPlan decodes the JSON of the saved plan file plan: its resources'
// actions and the resources a refresh found changed outside of it.
func showPlan(t *testing.T, cli *cliRun, plan string) (changes []string, unchangedFiles int, drift []string) {
	t.Helper()
	type change struct {
		Address string `json:"address"`
		Type    string `json:"type"`
		Change  struct {
			Actions []string `json:"actions"`
		} `json:"change"`
	}
	var p struct {
		ResourceChanges []change `json:"resource_changes"`
		ResourceDrift   []change `json:"resource_drift"`
	}
	must(t, json.Unmarshal([]byte(cli.run("show-"+plan+".log", "show", "-json", plan)), &p))
	for _, rc := range p.ResourceChanges {
		switch {
		case !slices.Equal(rc.Change.Actions, []string{"no-op"}):
			changes = append(changes, fmt.Sprintf("%s %v", rc.Address, rc.Change.Actions))
		case rc.Type == "sandbox_file":
			unchangedFiles++
		}
	}
	for _, d := range p.ResourceDrift {
		drift = append(drift, fmt.Sprintf("%s %v", d.Address, d.Change.Actions))
	}
	return changes, unchangedFiles, drift
}

// expectOnlyBadCreate checks that the only change of the saved plan is the
// creation of sandbox_file.f[batchBad], every other file unchanged.
func expectOnlyBadCreate(t *testing.T, cli *cliRun, plan string) {
	t.Helper()
	changes, unchanged, _ := showPlan(t, cli, plan)
	want := fmt.Sprintf("sandbox_file.f[%d] [create]", batchBad)
	if len(changes) != 1 || changes[0] != want || unchanged != batchCount-1 {
		t.Fatalf("plan %s: changes %v and %d files unchanged, want only %q and %d unchanged", plan, changes, unchanged, want, batchCount-1)
	}
}

// runBatch applies the batch to a new workspace of c's kind, then checks
// the one failure, what was written, the next plans, the repaired apply
// and the destroy of the files; see the tests calling it.
func runBatch(t *testing.T, c batchCase) {
	dir := t.TempDir()
	write := func(s batchSpec) {
		cfg := requiredSandbox + c.config(batchFiles(s))
		must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(cfg), 0o644))
	}
	write(c.spec)
	cli := newCLIRun(t, dir)
	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			cli.exitCode("cleanup.log", "destroy", "-auto-approve", "-refresh=false", "-input=false", "-no-color", batchPar)
		}
	})
	// step runs one command at -parallelism=50, logs its duration and
	// fails the test unless it exits with want (any non-zero for -1).
	step := func(what string, want int, command string, args ...string) {
		t.Helper()
		start := time.Now()
		code := cli.exitCode(strings.ReplaceAll(what, " ", "-")+".log", append([]string{command, "-input=false", "-no-color", batchPar}, args...)...)
		t.Logf("%s: exit %d in %s", what, code, time.Since(start).Round(time.Millisecond))
		if code != want && (want != -1 || code == 0) {
			t.Fatalf("%s exited %d, want %d:\n%s", what, code, want, cli.last)
		}
	}

	// The apply fails for index batchBad alone, with its own error.
	step("apply with one wrong", -1, "apply", "-auto-approve")
	expectOnlyBadError(t, "apply", cli.last, fmt.Sprintf("f/%d.txt", batchBad), c.refused)
	ws, files := readBatchState(t, dir)
	if want := batchIndexes(batchBad); !slices.Equal(files, want) {
		t.Fatalf("state holds sandbox_file.f%v, want all but [%d]", files, batchBad)
	}
	checkBatchEntries(t, c.list(t, ws), batchIndexes(batchBad), c.wantOwner)

	// Reading back the 199 finds each as applied: a refresh-only plan
	// shows no drift. Its exit code would not say so: Terraform counts a
	// mere reordering of an instance's sensitive paths in state as a change.
	step("refresh-only plan", 0, "plan", "-refresh-only", "-out=refresh.tfplan")
	if changes, _, drift := showPlan(t, cli, "refresh.tfplan"); len(changes)+len(drift) > 0 {
		t.Fatalf("refresh after the apply found changes %v, drift %v", changes, drift)
	}
	// The next plan creates index batchBad alone.
	step("plan with one wrong", 2, "plan", "-detailed-exitcode", "-out=bad.tfplan")
	expectOnlyBadCreate(t, cli, "bad.tfplan")

	// Fixed, the plan creates index batchBad alone, and its apply leaves
	// all 200 as configured.
	write(batchSpec{owner: c.spec.owner, dependsOn: c.spec.dependsOn})
	step("plan fixed", 2, "plan", "-detailed-exitcode", "-out=fix.tfplan")
	expectOnlyBadCreate(t, cli, "fix.tfplan")
	step("apply fixed", 0, "apply", "fix.tfplan")
	if _, files := readBatchState(t, dir); !slices.Equal(files, batchIndexes()) {
		t.Fatalf("state holds sandbox_file.f%v after the fixed apply, want all %d", files, batchCount)
	}
	checkBatchEntries(t, c.list(t, ws), batchIndexes(), c.wantOwner)
	step("plan after fixed", 0, "plan", "-detailed-exitcode")

	// Destroying the files alone removes every one from the workspace.
	step("destroy files", 0, "destroy", "-auto-approve", "-target=sandbox_file.f")
	if _, files := readBatchState(t, dir); len(files) != 0 {
		t.Fatalf("state still holds sandbox_file.f%v after their destroy", files)
	}
	checkBatchEntries(t, c.list(t, ws), nil, c.wantOwner)
	step("destroy", 0, "destroy", "-auto-approve")
	destroyed = true
	c.gone(t, ws)
}

// batchAttr is a string attribute of the workspace in state.
func batchAttr(t *testing.T, ws map[string]any, name string) string {
	t.Helper()
	v, ok := ws[name].(string)
	if !ok || v == "" {
		t.Fatalf("the workspace has no %s in state", name)
	}
	return v
}
