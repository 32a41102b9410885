package provider

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

func TestDiffTrees(t *testing.T) {
	tree := func(files ...string) *workspace.TreeSummary {
		s := &workspace.TreeSummary{Files: map[string]string{}, Modes: map[string]string{}}
		for i := 0; i < len(files); i += 3 {
			s.Files[files[i]], s.Modes[files[i]] = files[i+1], files[i+2]
		}
		return s
	}
	many := tree()
	for i := range 12 {
		p := fmt.Sprintf("f%02d", i)
		many.Files[p], many.Modes[p] = "x", "0644"
	}
	mixedBefore, mixedAfter := tree("g", "1", "0644"), tree("g", "2", "0644")
	for i := range 12 {
		p := fmt.Sprintf("f%02d", i)
		mixedAfter.Files[p], mixedAfter.Modes[p] = "x", "0644"
	}
	for i := range 5 {
		p := fmt.Sprintf("r%02d", i)
		mixedBefore.Files[p], mixedBefore.Modes[p] = "x", "0644"
	}
	for _, tc := range []struct {
		name          string
		before, after *workspace.TreeSummary
		want          []string
	}{
		{"same", tree("a", "1", "0644"), tree("a", "1", "0644"), []string{}},
		{"each kind, in path order",
			tree("b", "1", "0644", "c", "1", "0644", "d", "1", "0644"),
			tree("a", "1", "0644", "b", "2", "0644", "c", "1", "0755"),
			[]string{"add a", "modify b", "chmod c 0755", "remove d"}},
		{"a content change hides the mode change", tree("a", "1", "0600"), tree("a", "2", "0644"), []string{"modify a"}},
		{"at most ten, then a count", tree(), many,
			[]string{"add f00", "add f01", "add f02", "add f03", "add f04", "add f05", "add f06", "add f07", "add f08", "add f09", "and 2 more: 2 add"}},
		{"the count names the kinds it leaves out", mixedBefore, mixedAfter,
			[]string{"add f00", "add f01", "add f02", "add f03", "add f04", "add f05", "add f06", "add f07", "add f08", "add f09",
				"and 8 more: 2 add, 1 modify, 5 remove"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := diffTrees(tc.before, tc.after); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("diffTrees = %q, want %q", got, tc.want)
			}
		})
	}
}
