package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/hostsource"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/progress"
)

// localBatcher is a backend that writes many files with one filesystem sync
// (the local backend): a copy of 10,000 files costs one syncfs(2) instead
// of 10,000 fsyncs.
type localBatcher interface {
	WriteBatch(ctx context.Context, next func() (local.BatchItem, error)) ([]sandbox.WriteResult, error)
}

// visitItem is one host file handed from the tree walk to the batch; done
// is closed once the batch has read it to its end.
type visitItem struct {
	it   local.BatchItem
	done chan struct{}
}

// syncVisitBatch is syncTree for a localBatcher, with the plan's tree
// known: the host tree is walked once without hashing, and every file that
// must be copied is streamed into the batch and checked against its planned
// SHA-256 on the way. A file edited, added or removed since the plan fails
// the whole batch before anything is renamed into place.
func syncVisitBatch(ctx context.Context, w *Workspace, lb localBatcher, host hostsource.Policy, rel, src string, m Meta, planned *TreeSummary) (TreeSummary, error) {
	existing, err := prepareTree(ctx, w.Backend, rel, m.Perm, planned.Files)
	if err != nil {
		return TreeSummary{}, err
	}
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	vp := newVisitPlan(planned, existing, rel, src, m)
	prog := progress.Start(ctx, "copy", src, int64(len(planned.Files)), planned.TotalBytes)
	var (
		items    = make(chan visitItem)
		visitErr error
	)
	go func() {
		defer close(items)
		_, visitErr = host.VisitDir(bctx, src, func(v hostsource.TreeVisit) error {
			dst, perm, want, write, err := vp.check(bctx, w.Backend, v)
			if !write || err != nil {
				prog.Add(1, v.Size)
				return err
			}
			vi := visitItem{done: make(chan struct{})}
			// The batch hashes what it writes and refuses what differs
			// from the plan.
			vi.it = local.BatchItem{Rel: dst, Perm: perm, SHA256: want, ReplaceEmptyDir: true, R: prog.Reader(v.File)}
			select {
			case items <- vi:
			case <-bctx.Done():
				return bctx.Err()
			}
			select {
			case <-vi.done:
				prog.Add(1, 0)
				return nil
			case <-bctx.Done():
				return bctx.Err()
			}
		})
	}()
	var prev chan struct{}
	next := func() (local.BatchItem, error) {
		if prev != nil {
			close(prev)
			prev = nil
		}
		vi, ok := <-items
		if ok {
			prev = vi.done
			return vi.it, nil
		}
		if visitErr != nil {
			return local.BatchItem{}, visitErr
		}
		if err := vp.missing(); err != nil {
			return local.BatchItem{}, err
		}
		return local.BatchItem{}, io.EOF
	}
	_, err = lb.WriteBatch(bctx, next)
	if prev != nil {
		close(prev)
	}
	var changed *local.ContentChangedError
	if errors.As(err, &changed) {
		err = fmt.Errorf("%s changed after the plan: %w: %w", strings.TrimPrefix(changed.Rel, rel+"/"), ErrSourceChanged, err)
	}
	cancel()
	for range items { //nolint:revive // drain until the walk has stopped
	}
	if err != nil {
		return TreeSummary{}, err
	}
	if err := applyMetaTree(ctx, w.Backend, rel, m, true); err != nil {
		return TreeSummary{}, err
	}
	rememberWritten(ctx, w.Backend, rel)
	prog.Finish(true)
	return *planned, nil
}

// visitPlan checks each file of a host tree walk against the plan of the
// copy: the planned digests, what the workspace already holds, and the
// files seen so far. check may be called from several goroutines.
type visitPlan struct {
	planned  *TreeSummary
	existing map[string]backend.TreeFile
	rel, src string
	m        Meta

	mu   sync.Mutex
	seen map[string]bool
}

func newVisitPlan(planned *TreeSummary, existing map[string]backend.TreeFile, rel, src string, m Meta) *visitPlan {
	return &visitPlan{planned: planned, existing: existing, rel: rel, src: src, m: m, seen: make(map[string]bool, len(planned.Files))}
}

// check returns where the host file v goes, its mode and planned SHA-256,
// and whether it must be written; a file the workspace already holds only
// gets its mode fixed. A file the plan did not have is an error.
func (p *visitPlan) check(ctx context.Context, b backend.Backend, v hostsource.TreeVisit) (dst string, perm fs.FileMode, want string, write bool, err error) {
	want, ok := p.planned.Files[v.Rel]
	if !ok {
		return "", 0, "", false, fmt.Errorf("%s was added to %s after the plan: %w", v.Rel, p.src, ErrSourceChanged)
	}
	p.mu.Lock()
	p.seen[v.Rel] = true
	cur, had := p.existing[v.Rel]
	p.mu.Unlock()
	dst, perm = joinRel(p.rel, v.Rel), p.m.copiedPerm(v.Perm)
	if had && cur.SHA256 == want {
		if cur.Perm != perm {
			err = b.Chmod(ctx, dst, perm)
		}
		return dst, perm, want, false, err
	}
	return dst, perm, want, true, nil
}

// missing names the planned files the walk did not see (removed from the
// source since the plan); nil when there are none.
func (p *visitPlan) missing() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var missing []string
	for f := range p.planned.Files {
		if !p.seen[f] {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return fmt.Errorf("host source directory %s changed between plan and apply (removed %s): %w", p.src, strings.Join(missing, ", "), ErrSourceChanged)
}
