package provider

import (
	"fmt"
	"strings"
	"testing"
)

// batchIncompleteAccount appends to the container's /etc/passwd a line
// that names the user incomplete-137 but has no uid, gid, home or shell:
// the plan, which only looks for the name in /etc/passwd, accepts it as an
// owner; the lookup that resolves an owner inside the container, at the
// apply, finds no such account.
const batchIncompleteAccount = `
resource "sandbox_command" "incomplete_account" {
  workspace_id = sandbox_workspace.ws.id
  user         = "root"
  shell        = "echo incomplete-137:x >> /etc/passwd"
}
`

// 200 files of one Docker workspace applied at -parallelism=50, one owned
// by a user the container cannot resolve: that one alone fails, with its
// own error naming its path and owner; the 199 others are written with
// their content, mode 0640 and owner (read back with one exec in the
// container), the failed one leaves nothing behind, a refresh finds no
// drift and the next plan creates the failed one alone. With its owner
// fixed the apply completes all 200, the next plan is empty, and
// destroying the files removes all of them from the container.
//
// A name with no line at all in /etc/passwd would not reach the
// container: once the workspace exists (during the apply too, when each
// file is planned again with the workspace's id known), the plan refuses
// it. The incomplete line gets the wrong owner past the plan, so that the
// failure comes from the entry operation in the container.
func TestAccBatch_docker200Files(t *testing.T) {
	t.Parallel()
	env := newDockerEnv(t)
	runBatch(t, batchCase{
		config: func(body string) string {
			return env.config(`users = [{ name = "agent" }]`, batchIncompleteAccount+body)
		},
		spec:      batchSpec{owner: "agent", badOwner: "incomplete-137", dependsOn: "sandbox_command.incomplete_account"},
		wantOwner: "agent",
		refused:   "incomplete-137",
		list: func(t *testing.T, ws map[string]any) map[string]batchEntry {
			id := batchAttr(t, ws, "container_id")
			return listIn(t, batchAttr(t, ws, "root"), func(script string) (string, error) { return sh(id, script) })
		},
		gone: func(t *testing.T, ws map[string]any) {
			env.seen[batchAttr(t, ws, "container_id")] = true
			must(t, env.checkGone(nil))
		},
	})
}

// batchListScript lists every name in the directory f of a container (or
// pod) workspace rooted at root as "name mode owner sha256" (nothing when f
// does not exist), in one exec whatever the number of files.
func batchListScript(root string) string {
	return "set -- '" + strings.ReplaceAll(root, "'", `'\''`) + "'\n" + batchList
}

const batchList = `cd "$1/f" 2>/dev/null || exit 0
ls -A | while read -r n; do
  if [ -f "$n" ] && [ ! -L "$n" ]; then s=$(sha256sum "$n"); s=${s%% *}; else s=-; fi
  echo "$n $(stat -c '%a %U' "$n") $s"
done`

// parseBatchList parses the output of batchListScript.
func parseBatchList(out string) (map[string]batchEntry, error) {
	got := map[string]batchEntry{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, fmt.Errorf("unexpected listing line %q", line)
		}
		got[f[0]] = batchEntry{mode: f[1], owner: f[2], sha256: f[3]}
	}
	return got, nil
}

// listIn reads back the directory f with batchListScript run by run.
func listIn(t *testing.T, root string, run func(script string) (string, error)) map[string]batchEntry {
	t.Helper()
	out, err := run(batchListScript(root))
	must(t, err)
	got, err := parseBatchList(out)
	must(t, err)
	return got
}
