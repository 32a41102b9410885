package backend

import (
	"bytes"
	"errors"
	"fmt"
)

// MaxOutputBytes is how much of a command's standard output, and as much
// of its standard error, Exec keeps: 4 MiB each. Output is recorded in
// Terraform state (as text and as base64), so a command that prints more
// should write to a file in the workspace instead.
const MaxOutputBytes = 4 << 20

// ErrOutputTooLarge is wrapped when a command printed more than
// MaxOutputBytes on a stream; the result then holds the first
// MaxOutputBytes of it.
var ErrOutputTooLarge = errors.New("command output too large")

// CappedBuffer keeps the first Limit bytes written to it and counts the
// rest, so a command's output can never exhaust memory. A Limit of 0 keeps
// everything.
type CappedBuffer struct {
	Limit int
	// Strict makes a write past Limit fail (wrapping ErrOutputTooLarge), so
	// the reader stops at once instead of draining an endless stream.
	Strict bool
	buf    bytes.Buffer
	total  int64
}

// Write keeps what fits under Limit and fails only when Strict.
func (c *CappedBuffer) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	if c.Limit == 0 {
		return c.buf.Write(p)
	}
	room := c.Limit - c.buf.Len()
	if room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	if c.Strict && len(p) > room {
		return max(room, 0), fmt.Errorf("%w: more than %d bytes", ErrOutputTooLarge, c.Limit)
	}
	return len(p), nil
}

// Bytes returns the kept bytes.
func (c *CappedBuffer) Bytes() []byte { return c.buf.Bytes() }

// Truncated reports whether more was written than was kept.
func (c *CappedBuffer) Truncated() bool { return c.total > int64(c.buf.Len()) }

// CheckOutput returns an error wrapping ErrOutputTooLarge when either
// buffer was truncated, naming the stream and how much was written.
func CheckOutput(stdout, stderr *CappedBuffer) error {
	for _, s := range []struct {
		name string
		b    *CappedBuffer
	}{{"stdout", stdout}, {"stderr", stderr}} {
		if s.b.Truncated() {
			return fmt.Errorf("%w: %s was %d bytes; at most %d bytes are kept (write large output to a file in the workspace instead)",
				ErrOutputTooLarge, s.name, s.b.total, s.b.Limit)
		}
	}
	return nil
}
