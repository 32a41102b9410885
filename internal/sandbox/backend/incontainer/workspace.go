package incontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
)

// Workspace is a workspace root inside one container. It implements every
// file operation of backend.Backend and Exec; the workspace kind embeds it
// and adds Kind, Exists and what only it can do.
type Workspace struct {
	r     Runner
	key   string // the container's key in the helper cache
	root  string
	cache *HelperCache
	hooks Hooks
}

// New returns the workspace rooted at root in the container r runs in; key
// identifies the container in cache (its id).
func New(r Runner, key, root string, cache *HelperCache, hooks Hooks) *Workspace {
	return &Workspace{r: r, key: key, root: root, cache: cache, hooks: hooks}
}

var _ backend.BatchWriter = (*Workspace)(nil)

// Root returns the absolute workspace root inside the container.
func (w *Workspace) Root() string { return w.root }

// Runner returns the runner of the workspace's container.
func (w *Workspace) Runner() Runner { return w.r }

// HelperPath returns the helper's path in the container, installing it
// when it is not there yet.
func (w *Workspace) HelperPath(ctx context.Context) (string, error) {
	return w.cache.ensure(ctx, w)
}

// helper runs one helper operation on the workspace and decodes its
// response (through the workspace's queue when it can be batched, see
// batch.go); a Response error comes back as an error wrapping the matching
// backend sentinel.
func (w *Workspace) helper(ctx context.Context, op, rel, arg string, stdin io.Reader) (fshelper.Response, error) {
	if fshelper.Batchable(op) {
		if in, hasIn, ok := batchInput(stdin); ok {
			return w.queued(ctx, op, rel, arg, in, hasIn)
		}
	}
	return w.helperNow(ctx, op, rel, arg, stdin)
}

// helperNow runs one helper operation in a process of its own.
func (w *Workspace) helperNow(ctx context.Context, op, rel, arg string, stdin io.Reader) (fshelper.Response, error) {
	w.countCall()
	opCtx, cancel := withDeadline(ctx, op, arg)
	defer cancel()
	if r, ok, err := w.helperFirst(ctx, opCtx, op, rel, arg, stdin); ok {
		return r, err
	}
	p, err := w.startedHelper(opCtx, op)
	if err != nil {
		return fshelper.Response{}, w.runErr(ctx, opCtx, op, rel, arg, answerCap(op), err)
	}
	res, err := w.r.Run(opCtx, w.helperProc(p, op, rel, arg, stdin))
	if err != nil {
		return fshelper.Response{}, w.runErr(ctx, opCtx, op, rel, arg, answerCap(op), err)
	}
	return w.response(op, rel, res)
}

// helperProc is the process of one helper operation: its answer bounded
// by answerCap (reading stops once it is exceeded).
func (w *Workspace) helperProc(p, op, rel, arg string, stdin io.Reader) Proc {
	argv := []string{p, op, w.root, rel}
	if arg != "" {
		argv = append(argv, arg)
	}
	if fshelper.Sealed(op, arg) {
		// The seal key of the container's digest cache opens the stdin
		// (package fshelper); a fresh reader each time, so an operation
		// without stdin of its own can still be tried twice.
		line := bytes.NewReader(fshelper.SealLine(digestcache.HostKey()))
		if stdin == nil {
			stdin = line
		} else {
			stdin = io.MultiReader(line, stdin)
		}
	}
	return Proc{Argv: argv, User: "0:0", Stdin: stdin, Complete: completeResponse, Limit: answerCap(op), Strict: true}
}

// helperFirst runs an operation without stdin straight away when the cache
// does not know the container yet, at the helper's path for this
// provider's binary, instead of first asking that helper for its version:
// a whole response proves it answers (ok, and the cache learns it). When
// it does not answer, ok is false and nothing was done that the caller's
// check, install and retry would not do again; an operation with stdin
// (which cannot be sent twice) always takes that path. The helper run is
// the container's protected copy when it has one
// (Hooks.Protected says where the helper is).
func (w *Workspace) helperFirst(ctx, opCtx context.Context, op, rel, arg string, stdin io.Reader) (fshelper.Response, bool, error) {
	if stdin != nil {
		return fshelper.Response{}, false, nil
	}
	if _, known := w.cache.lookup(w.key); known {
		return fshelper.Response{}, false, nil
	}
	h, err := FindHelper()
	if err != nil {
		return fshelper.Response{}, false, nil //nolint:nilerr // the regular path reports it
	}
	p := h.ContainerPath()
	if w.hooks.Protected != nil {
		if p, err = w.hooks.Protected(opCtx, h); err != nil {
			return fshelper.Response{}, true, w.helperErr(op, rel, err)
		}
		if p == "" {
			p = h.ContainerPath()
		}
	}
	res, err := w.r.Run(opCtx, w.helperProc(p, op, rel, arg, nil))
	if err != nil && (errors.Is(err, backend.ErrOutputTooLarge) || opCtx.Err() != nil) {
		return fshelper.Response{}, true, w.runErr(ctx, opCtx, op, rel, arg, answerCap(op), err)
	}
	if err != nil || res.ExitCode != 0 || !completeResponse(res.Stdout) {
		return fshelper.Response{}, false, nil //nolint:nilerr // the regular path checks, installs or starts, and reports
	}
	w.cache.remember(w.key, p)
	r, err := w.response(op, rel, res)
	return r, true, err
}

// response decodes and checks a helper's answer; a Response error comes
// back as an error wrapping the matching backend sentinel, an answer that
// is malformed or does not answer what was asked as one wrapping
// ErrBadAnswer.
func (w *Workspace) response(op, rel string, res sandbox.ExecResult) (fshelper.Response, error) {
	if res.ExitCode != 0 {
		return fshelper.Response{}, w.helperErr(op, rel, fmt.Errorf("exited with code %d: %s",
			res.ExitCode, clip(bytes.TrimSpace(append(res.Stderr, res.Stdout...)))))
	}
	r, err := decodeAnswer(res.Stdout)
	if err != nil {
		return fshelper.Response{}, w.helperErr(op, rel, fmt.Errorf("%w: malformed answer (%s): %s", ErrBadAnswer, err.Error(), clip(res.Stdout)))
	}
	if r.Error != nil {
		return r, r.Error.Err()
	}
	if err := checkAnswer(op, rel, r); err != nil {
		return fshelper.Response{}, w.helperErr(op, rel, fmt.Errorf("%w: %w", ErrBadAnswer, err))
	}
	return r, nil
}

// clip shortens what a helper printed for an error message.
func clip(b []byte) string {
	const n = 512
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}

// startedHelper returns the helper's path for op; only an operation that
// changes the workspace starts a stopped container for it (a plan, which
// only reads, leaves it stopped).
func (w *Workspace) startedHelper(ctx context.Context, op string) (string, error) {
	p, err := w.cache.ensure(ctx, w)
	if isStopped(err) && changes(op) && w.hooks.Start != nil {
		if serr := w.hooks.Start(ctx); serr != nil {
			return "", fmt.Errorf("%w; starting it failed: %w", err, serr)
		}
		p, err = w.cache.ensure(ctx, w)
	}
	return p, err
}

func isStopped(err error) bool { return errors.Is(err, backend.ErrStopped) }

// changes reports whether a helper operation changes the workspace; only
// such operations start a stopped container. An operation not listed here
// never does.
func changes(op string) bool {
	switch op {
	case fshelper.OpWrite, fshelper.OpMkdir, fshelper.OpChmod, fshelper.OpChgrp, fshelper.OpChown, fshelper.OpChownTree,
		fshelper.OpRemove, fshelper.OpRemoveAll, fshelper.OpRemoveTree, fshelper.OpHydrate, fshelper.OpInit:
		return true
	}
	return false
}

// helperBroken explains why an installed helper does not run.
func (w *Workspace) helperBroken(ctx context.Context, h Helper, p string) error {
	msg := fmt.Sprintf("the file helper copied into %s at %s does not run", w.r.Name(), p)
	if w.hooks.ExplainBroken != nil {
		if why := w.hooks.ExplainBroken(ctx, h); why != "" {
			msg += ": " + why
		}
	}
	return fmt.Errorf("%s", msg)
}

// InitRoot creates the workspace root (mode 0755) when it is missing,
// refusing a symlink or a non-directory there.
func (w *Workspace) InitRoot(ctx context.Context) error {
	_, err := w.helper(ctx, fshelper.OpInit, ".", "", nil)
	return err
}

// OOMKills returns how many processes the kernel's out-of-memory killer
// has killed in the container so far.
func (w *Workspace) OOMKills(ctx context.Context) (int64, error) {
	r, err := w.helper(ctx, fshelper.OpOOMKills, ".", "", nil)
	return r.Size, err
}

// Stat describes rel without following a final symlink; Group is the
// group's name in the container's /etc/group, or the decimal gid.
func (w *Workspace) Stat(ctx context.Context, rel string) (backend.FileInfo, error) {
	r, err := w.helper(ctx, fshelper.OpStat, rel, "", nil)
	if err != nil {
		return backend.FileInfo{}, err
	}
	return *r.Info, nil
}

// MkdirAll creates rel and its missing parents with exactly perm.
func (w *Workspace) MkdirAll(ctx context.Context, rel string, perm fs.FileMode) error {
	_, err := w.helper(ctx, fshelper.OpMkdir, rel, strconv.FormatUint(uint64(perm), 10), nil)
	return err
}

// Chmod sets the mode of rel; no symlink is followed.
func (w *Workspace) Chmod(ctx context.Context, rel string, perm fs.FileMode) error {
	_, err := w.helper(ctx, fshelper.OpChmod, rel, strconv.FormatUint(uint64(perm), 10), nil)
	return err
}

// Chgrp changes the group of rel to a group of the container (name or
// decimal gid); no symlink is followed.
func (w *Workspace) Chgrp(ctx context.Context, rel string, group string) error {
	_, err := w.helper(ctx, fshelper.OpChgrp, rel, group, nil)
	return err
}

// Chown changes the owner and group of rel (and, with tree, of everything
// below it) to a user and group of the container, names or decimal ids;
// the helper does it inside the container in one process.
func (w *Workspace) Chown(ctx context.Context, rel, owner, group string, tree bool) error {
	op := fshelper.OpChown
	if tree {
		op = fshelper.OpChownTree
	}
	_, err := w.helper(ctx, op, rel, owner+":"+group, nil)
	return err
}

// HashFile returns the SHA-256 and size of the regular file rel, computed
// inside the container.
func (w *Workspace) HashFile(ctx context.Context, rel string) (string, int64, error) {
	r, err := w.helper(ctx, fshelper.OpHash, rel, "", nil)
	return r.SHA256, r.Size, err
}

// WalkFiles lists and hashes every regular file below rel inside the
// container (one process for the whole tree).
func (w *Workspace) WalkFiles(ctx context.Context, rel string) ([]backend.TreeFile, error) {
	r, err := w.helper(ctx, fshelper.OpWalk, rel, "", nil)
	if err != nil {
		return nil, err
	}
	if r.Files == nil {
		r.Files = []backend.TreeFile{}
	}
	return r.Files, nil
}

// Remove deletes the file or empty directory rel; missing is not an error.
func (w *Workspace) Remove(ctx context.Context, rel string) error {
	_, err := w.helper(ctx, fshelper.OpRemove, rel, "", nil)
	return err
}

// RemoveAll deletes rel and everything below it without following
// symlinks; missing is not an error.
func (w *Workspace) RemoveAll(ctx context.Context, rel string) error {
	_, err := w.helper(ctx, fshelper.OpRemoveAll, rel, "", nil)
	return err
}

// RemoveTree removes the listed files of a tree copy, then the directories
// left empty (see backend.Backend), with one helper process whatever the
// number of files: the list goes to the helper's stdin.
func (w *Workspace) RemoveTree(ctx context.Context, rel string, files []string) (backend.RemoveReport, error) {
	list, err := json.Marshal(files)
	if err != nil {
		return backend.RemoveReport{}, err
	}
	r, err := w.helper(ctx, fshelper.OpRemoveTree, rel, "", bytes.NewReader(list))
	if err != nil {
		return backend.RemoveReport{}, err
	}
	if r.Removal == nil || r.Removal.Left < 0 {
		return backend.RemoveReport{}, w.helperErr(fshelper.OpRemoveTree, rel, fmt.Errorf("%w: no removal report", ErrBadAnswer))
	}
	listed := make(map[string]bool, len(files))
	for _, f := range files {
		listed[f] = true
	}
	for _, k := range r.Removal.Kept {
		if !listed[k] {
			return backend.RemoveReport{}, w.helperErr(fshelper.OpRemoveTree, rel, fmt.Errorf("%w: it reports keeping %q, which was not listed", ErrBadAnswer, k))
		}
	}
	return *r.Removal, nil
}
