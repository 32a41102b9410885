package incontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// What comes out of a container is untrusted: the agent may be root there
// and, where it can reach the helper, may have replaced it. Every helper
// answer is therefore bounded in bytes and time and checked before use.
const (
	// MaxAnswerBytes bounds the answer of an operation on one path (stat,
	// hash, mkdir, ...): 1 MiB.
	MaxAnswerBytes = 1 << 20
	// MaxListAnswerBytes bounds the answer of an operation that reports
	// one record per file (walk, write, removetree): 64 MiB.
	MaxListAnswerBytes = 64 << 20
	// maxStderrBytes bounds what is kept of a helper's standard error.
	maxStderrBytes = 64 << 10
)

// Deadlines of a helper operation when the caller's context has none: an
// operation on one path must answer within QuickTimeout, one that streams
// or walks a tree within StreamTimeout. A caller's own deadline, longer
// or shorter, replaces them. Variables so that tests can shorten them.
var (
	QuickTimeout  = 2 * time.Minute
	StreamTimeout = 15 * time.Minute
)

// streams reports whether op streams content or walks a tree, so gets
// StreamTimeout and, for an answer, MaxListAnswerBytes.
func streams(op string) bool {
	switch op {
	case fshelper.OpWrite, fshelper.OpHydrate, fshelper.OpPersist, fshelper.OpRead, fshelper.OpWalk, fshelper.OpHash,
		fshelper.OpRemoveAll, fshelper.OpRemoveTree, fshelper.OpChownTree:
		return true
	}
	return false
}

// answerCap is the largest answer accepted from op.
func answerCap(op string) int {
	switch op {
	case fshelper.OpWalk, fshelper.OpWrite, fshelper.OpRemoveTree:
		return MaxListAnswerBytes
	}
	return MaxAnswerBytes
}

// timeout is op's deadline when the caller set none; a stat with
// StatHash reads the file, so streams.
func timeout(op, arg string) time.Duration {
	if streams(op) || (op == fshelper.OpStat && arg == fshelper.StatHash) {
		return StreamTimeout
	}
	return QuickTimeout
}

// withDeadline returns ctx bounded by op's default deadline unless the
// caller set one.
func withDeadline(ctx context.Context, op, arg string) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, timeout(op, arg))
}

// helperErr is an error of one helper operation that names the container
// and the operation: `container 0123abcd4567: file helper stat "a/b": ...`.
func (w *Workspace) helperErr(op, rel string, err error) error {
	return fmt.Errorf("%s: file helper %s %q: %w", w.r.Name(), op, rel, err)
}

// ErrBadAnswer is wrapped by every error about a helper answer that is
// malformed, oversized, late or inconsistent with what was asked.
var ErrBadAnswer = errors.New("untrusted file helper answer rejected")

// runErr explains a failed run of op: its answer was too large (over
// limit bytes), its deadline passed, the caller gave up, or the runner
// failed.
func (w *Workspace) runErr(ctx, opCtx context.Context, op, rel, arg string, limit int, err error) error {
	switch {
	case errors.Is(err, backend.ErrOutputTooLarge) || errors.Is(err, errAnswerTooLarge):
		return w.helperErr(op, rel, fmt.Errorf("%w: answer exceeds %s", ErrBadAnswer, sizeText(int64(limit))))
	case ctx.Err() == nil && errors.Is(opCtx.Err(), context.DeadlineExceeded):
		return w.helperErr(op, rel, fmt.Errorf("%w: no answer within %s", ErrBadAnswer, timeout(op, arg)))
	case ctx.Err() != nil:
		return w.helperErr(op, rel, fmt.Errorf("no answer: %w", ctx.Err()))
	}
	return err
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// decodeAnswer decodes exactly one Response, refusing unknown fields and
// trailing data.
func decodeAnswer(b []byte) (fshelper.Response, error) {
	var r fshelper.Response
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return fshelper.Response{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fshelper.Response{}, errors.New("data after the answer")
	}
	return r, nil
}

// validRel reports whether p is a clean relative POSIX path without "..",
// as a helper answer must name files below what was asked.
func validRel(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.ContainsRune(p, 0) {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return false
		}
	}
	return true
}

func validSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// checkAnswer checks that a successful Response answers op on rel as the
// protocol says, so nothing the caller uses is out of shape.
func checkAnswer(op, rel string, r fshelper.Response) error {
	if r.Size < 0 {
		return fmt.Errorf("negative size %d", r.Size)
	}
	switch op {
	case fshelper.OpStat:
		if r.Info == nil {
			return errors.New("no file information")
		}
		if r.Info.Path != rel || r.Info.Size < 0 {
			return fmt.Errorf("information about %q (size %d) instead", r.Info.Path, r.Info.Size)
		}
		if r.SHA256 != "" && !validSHA256(r.SHA256) {
			return fmt.Errorf("malformed SHA-256 %q", r.SHA256)
		}
	case fshelper.OpHash:
		if !validSHA256(r.SHA256) {
			return fmt.Errorf("malformed SHA-256 %q", r.SHA256)
		}
	case fshelper.OpWalk:
		seen := make(map[string]bool, len(r.Files))
		for _, f := range r.Files {
			if !validRel(f.Rel) || seen[f.Rel] {
				return fmt.Errorf("invalid or repeated path %q", f.Rel)
			}
			seen[f.Rel] = true
			if f.Size < 0 || (f.SHA256 != "" && !validSHA256(f.SHA256)) {
				return fmt.Errorf("file %q: size %d, SHA-256 %q", f.Rel, f.Size, f.SHA256)
			}
		}
	case fshelper.OpWrite:
		for _, wr := range r.Written {
			if wr.Size < 0 || !validSHA256(wr.SHA256) {
				return fmt.Errorf("written size %d, SHA-256 %q", wr.Size, wr.SHA256)
			}
		}
	}
	return nil
}

// errAnswerTooLarge is returned by a capWriter past its limit.
var errAnswerTooLarge = errors.New("answer too large")

// capWriter passes at most limit bytes to w, then fails, so that a stream
// larger than announced stops being read at once.
type capWriter struct {
	w     io.Writer
	limit int64
	n     int64
	over  bool // more than limit was offered
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.limit {
		room := max(c.limit-c.n, 0)
		if room > 0 {
			n, err := c.w.Write(p[:room])
			c.n += int64(n)
			if err != nil {
				return n, err
			}
		}
		c.over = true
		return int(room), errAnswerTooLarge
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
