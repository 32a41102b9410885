package provider

import (
	"context"
	"encoding/json"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// A copied tree keeps its per-file digests in private state, so plans stay
// short: `changes` names what differs, and `files` is recorded only on
// request (record_files).

const (
	// observedKey holds the tree last seen in the workspace (by a read or
	// an apply), a workspace.TreeSummary as JSON.
	observedKey = "observed"
	// plannedKey holds the tree a plan planned, for the update that
	// follows it (a create gets no private state from its plan).
	plannedKey = "planned"
	// maxChanges is how many lines `changes` lists before `and <n> more: ...`.
	maxChanges = 10
)

func getTree(ctx context.Context, p privateGetter, key string) *workspace.TreeSummary {
	b, _ := p.GetKey(ctx, key)
	if len(b) == 0 {
		return nil
	}
	var s workspace.TreeSummary
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// setTree stores s under key; nil removes the key.
func setTree(ctx context.Context, p privateSetter, key string, s *workspace.TreeSummary) diag.Diagnostics {
	if s == nil {
		return p.SetKey(ctx, key, nil)
	}
	b, err := json.Marshal(s)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Recording the copied tree failed", err.Error())
		return diags
	}
	return p.SetKey(ctx, key, b)
}

// diffTrees lists what turns the tree before into after, in path order.
func diffTrees(before, after *workspace.TreeSummary) []string {
	type change struct{ path, line string }
	var all []change
	for p, sum := range after.Files {
		old, had := before.Files[p]
		switch {
		case !had:
			all = append(all, change{p, "add " + p})
		case old != sum:
			all = append(all, change{p, "modify " + p})
		case before.Modes[p] != after.Modes[p]:
			all = append(all, change{p, "chmod " + p + " " + after.Modes[p]})
		}
	}
	for p := range before.Files {
		if _, keep := after.Files[p]; !keep {
			all = append(all, change{p, "remove " + p})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].path < all[j].path })
	lines := make([]string, 0, min(len(all), maxChanges+1))
	for i, c := range all {
		if i == maxChanges {
			lines = append(lines, moreLine(all[i:], func(c change) string { return c.line }))
			break
		}
		lines = append(lines, c.line)
	}
	return lines
}

// moreLine summarises the changes a `changes` list leaves out: "and 12
// more: 10 add, 2 remove", kinds in the order add, modify, remove, chmod.
func moreLine[T any](rest []T, line func(T) string) string {
	counts := map[string]int{}
	for _, c := range rest {
		kind, _, _ := strings.Cut(line(c), " ")
		counts[kind]++
	}
	parts := make([]string, 0, 4)
	for _, kind := range []string{"add", "modify", "remove", "chmod"} {
		if counts[kind] > 0 {
			parts = append(parts, strconv.Itoa(counts[kind])+" "+kind)
		}
	}
	return "and " + strconv.Itoa(len(rest)) + " more: " + strings.Join(parts, ", ")
}

func sameTree(a, b *workspace.TreeSummary) bool {
	return a.SHA256 == b.SHA256 && maps.Equal(a.Files, b.Files) && maps.Equal(a.Modes, b.Modes)
}

func changesValue(lines []string) types.List {
	if len(lines) == 0 {
		return types.ListNull(types.StringType)
	}
	v, _ := types.ListValueFrom(context.Background(), types.StringType, lines)
	return v
}

// planChanges sets `changes` to what turns the tree last seen in the
// workspace into planned: null for a creation. When nothing differs, or
// the tree seen is not known (state from an earlier version, not refreshed
// yet), the value in state stays, so an unchanged tree never shows a
// difference.
func (t *treeModel) planChanges(ctx context.Context, req resource.ModifyPlanRequest, planned workspace.TreeSummary) {
	t.Changes = types.ListNull(types.StringType)
	if req.State.Raw.IsNull() {
		return // a creation adds every file: file_count says how many
	}
	_ = req.State.GetAttribute(ctx, path.Root("changes"), &t.Changes)
	before := getTree(ctx, req.Private, observedKey)
	if before == nil {
		return
	}
	if lines := diffTrees(before, &planned); len(lines) > 0 {
		t.Changes = changesValue(lines)
	}
}

// recordApplied sets the tree attributes from the tree an apply left in
// the workspace, and keeps its files in private state: as written (for
// destroy) and as seen (for the next plan).
func (t *treeModel) recordApplied(ctx context.Context, p privateState, res workspace.TreeSummary) diag.Diagnostics {
	if t.Changes.IsUnknown() {
		t.Changes = types.ListNull(types.StringType)
		if before := getTree(ctx, p, observedKey); before != nil {
			t.Changes = changesValue(diffTrees(before, &res))
		}
	}
	t.setSummary(ctx, res)
	diags := recordWrittenNames(ctx, p, sortedKeys(res.Files))
	diags.Append(setTree(ctx, p, observedKey, &res)...)
	diags.Append(setTree(ctx, p, plannedKey, nil)...)
	return diags
}
