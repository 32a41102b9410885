package posix

import (
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// The Python SDK's path rules (ValidateEntryPath) say where an entry may go;
// the filesystem adds its own limits, which the Python SDK only meets when it
// writes: no NUL byte, no name longer than MaxNameBytes, no path longer than
// MaxPathBytes, and no file at the workspace root. CheckEntryPlace applies
// them to a path ValidateEntryPath already normalised, so every surface
// (entry resources, sandbox_manifest, the manifest data source) refuses
// them at plan time with the same words.

// MaxNameBytes is the longest file name Linux filesystems accept (NAME_MAX).
const MaxNameBytes = 255

// MaxPathBytes is the longest path accepted (PATH_MAX less its NUL).
const MaxPathBytes = 4095

// CheckEntryPlace checks a normalised workspace-relative path rel (the
// result of ValidateEntryPath) for an entry that makes a directory (isDir)
// or a file. It returns nil or an error whose text quotes rel with every
// control byte escaped.
func CheckEntryPlace(rel string, isDir bool) error {
	if strings.ContainsRune(rel, 0) {
		return fmt.Errorf("path %s contains a NUL byte, which no file name can hold", sandbox.QuoteText(rel))
	}
	if len(rel) > MaxPathBytes {
		return fmt.Errorf("path %s is %d bytes long; paths are limited to %d bytes", sandbox.QuoteText(rel), len(rel), MaxPathBytes)
	}
	for _, part := range strings.Split(rel, "/") {
		if len(part) > MaxNameBytes {
			return fmt.Errorf("path %s has a component of %d bytes; file names are limited to %d bytes",
				sandbox.QuoteText(rel), len(part), MaxNameBytes)
		}
	}
	if rel == "." && !isDir {
		return fmt.Errorf("path %s names the workspace root itself, which is a directory; a file needs a path below it, "+
			"such as \"notes.txt\"", sandbox.QuoteText(rel))
	}
	return nil
}

// EscapeControl returns s with every control byte other than newline and
// tab, and every invalid UTF-8 byte, written as a Go escape (\x00, \x1b),
// so an error message quoting a value never writes raw control bytes to a
// terminal.
func EscapeControl(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == 0xFFFD && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			q := fmt.Sprintf("%+q", string(r))
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
