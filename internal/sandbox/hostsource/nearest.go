package hostsource

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agext/levenshtein"
)

// maxSiblingsScanned bounds the directory read behind a "did you mean"
// suggestion, so a huge directory costs at most this many names.
const maxSiblingsScanned = 4096

// nearestSibling returns the existing entry of abs's directory whose name
// is closest to abs's base name, or "" when the directory cannot be read or
// nothing is close enough to be a likely typo: at most a third of the
// name's length in edits (at least one), case differences counting for
// nothing.
func nearestSibling(abs string) string {
	dir, name := filepath.Dir(abs), filepath.Base(abs)
	d, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer d.Close()
	names, err := d.Readdirnames(maxSiblingsScanned)
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	limit := max(1, len(name)/3)
	best, bestDist := "", limit+1
	want := strings.ToLower(name)
	for _, n := range names {
		dist := levenshtein.Distance(want, strings.ToLower(n), nil)
		if dist < bestDist || (dist == bestDist && n < best) {
			best, bestDist = n, dist
		}
	}
	if best == "" {
		return ""
	}
	return filepath.Join(dir, best)
}
