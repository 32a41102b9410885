package sandbox

import "fmt"

// Bounds on what comes out of a workspace. The agent inside a workspace is
// untrusted: an export, a snapshot, a restore and every answer of the
// in-container helper are bounded in bytes and files, and a bound that is
// reached fails the operation naming the bound and how to raise it.
const (
	// DefaultMaxBytes is the default bound on the bytes one export,
	// snapshot or restore writes on the host: 10 GiB. Holes of sparse
	// files are not counted (they are written as holes).
	DefaultMaxBytes int64 = 10 << 30
	// DefaultMaxFiles is the default bound on the files (and directories
	// and links) one export, snapshot or restore writes.
	DefaultMaxFiles int64 = 1_000_000
)

// OutputLimits bounds what one operation may take out of a workspace.
// The zero value means the defaults.
type OutputLimits struct {
	MaxBytes int64
	MaxFiles int64
}

// WithDefaults returns l with each zero bound replaced by its default.
func (l OutputLimits) WithDefaults() OutputLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	return l
}

// LimitError reports that an operation reached one of its OutputLimits.
type LimitError struct {
	// Op names the operation ("export", "snapshot", "restore").
	Op string
	// Limit names the bound: "max_bytes" or "max_files".
	Limit string
	// Value is the bound in force.
	Value int64
	// Path is the workspace-relative path being written when the bound
	// was reached, if any.
	Path string
}

func (e *LimitError) Error() string {
	at := ""
	if e.Path != "" {
		at = fmt.Sprintf(" at %q", e.Path)
	}
	return fmt.Sprintf("%s stopped%s: it would write more than %s = %d; raise %s on the resource (or the provider's default) "+
		"if the workspace really holds that much", e.Op, at, e.Limit, e.Value, e.Limit)
}
