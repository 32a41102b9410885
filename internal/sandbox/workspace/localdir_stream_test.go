package workspace

import (
	"slices"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
)

// TestAcrossDirs: a stream takes one file from each directory in turn,
// and still carries every file exactly once.
func TestAcrossDirs(t *testing.T) {
	names := func(fs []checksum.TreeFile) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Rel)
		}
		return out
	}
	files := func(rels ...string) []checksum.TreeFile {
		var out []checksum.TreeFile
		for _, r := range rels {
			out = append(out, checksum.TreeFile{Rel: r})
		}
		return out
	}
	for _, tc := range []struct {
		in, want []string
	}{
		{nil, nil},
		{[]string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{[]string{"a/1", "a/2", "a/3", "b/1", "c/1", "c/2"}, []string{"a/1", "b/1", "c/1", "a/2", "c/2", "a/3"}},
		// A directory's files interrupted by a subdirectory's in path
		// order: two runs.
		{[]string{"a/b.txt", "a/b/c", "a/c.txt", "top"}, []string{"a/b.txt", "a/b/c", "a/c.txt", "top"}},
		{[]string{"x", "y", "d/1", "d/2"}, []string{"x", "d/1", "y", "d/2"}},
	} {
		got := names(acrossDirs(files(tc.in...)))
		if !slices.Equal(got, tc.want) {
			t.Errorf("acrossDirs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
