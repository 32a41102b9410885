package incontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// Terraform creates, refreshes and deletes the entries of one workspace as
// separate, concurrent requests, each of which would start one helper
// process in the container. A queue per workspace coalesces them (group
// commit): an operation that finds its workspace's queue idle runs at once,
// as before, with no waiting window; operations that arrive while one is
// running wait, and all that waited go together as one OpBatch when it is
// done. A lone operation therefore costs what it did, and N concurrent ones
// cost a few round trips instead of N. Each operation keeps its own answer
// and its own error; they run in the order they arrived, so an entry and
// the directory Terraform made before it keep their order (Terraform starts
// a dependent entry only once its dependency's operation has returned).

// maxBatchedWrite is the largest file written through the queue: its tar
// stream is held in memory until its batch runs. Larger files stream to a
// helper process of their own.
const maxBatchedWrite = 256 << 10

// memInput is the stdin of an operation held whole in memory, which the
// queue may carry in a batch.
type memInput struct {
	*bytes.Reader
	b []byte
}

func newMemInput(b []byte) *memInput { return &memInput{Reader: bytes.NewReader(b), b: b} }

// call is one operation waiting in a queue.
type call struct {
	w            *Workspace
	ctx          context.Context
	op, rel, arg string
	in           []byte // stdin, nil for none
	hasIn        bool
	done         chan struct{}
	resp         fshelper.Response
	err          error
}

func (c *call) stdin() io.Reader {
	if !c.hasIn {
		return nil
	}
	return bytes.NewReader(c.in)
}

// queue is the operation queue of one workspace root in one container.
type queue struct {
	mu      sync.Mutex
	busy    bool
	pending []*call
	// single is set once the container's helper answered OpBatch as an
	// unknown operation (a protected copy of an older helper): its
	// operations then run one by one, as before.
	single atomic.Bool
}

var queues sync.Map // container key + "\x00" + root -> *queue

func (w *Workspace) queue() *queue {
	v, _ := queues.LoadOrStore(w.key+"\x00"+w.root, new(queue))
	q, _ := v.(*queue)
	return q
}

// batchInput reports whether an operation's stdin lets it be queued, and
// returns its bytes.
func batchInput(stdin io.Reader) (in []byte, hasIn, ok bool) {
	switch s := stdin.(type) {
	case nil:
		return nil, false, true
	case *memInput:
		return s.b, true, true
	}
	return nil, false, false
}

// queued runs one batchable operation through the workspace's queue.
func (w *Workspace) queued(ctx context.Context, op, rel, arg string, in []byte, hasIn bool) (fshelper.Response, error) {
	q := w.queue()
	c := &call{w: w, ctx: ctx, op: op, rel: rel, arg: arg, in: in, hasIn: hasIn, done: make(chan struct{})}
	if q.single.Load() {
		return w.helperNow(ctx, op, rel, arg, c.stdin())
	}
	q.mu.Lock()
	q.pending = append(q.pending, c)
	if !q.busy {
		// The leader runs at once (alone, a plain helper process) and
		// hands on what arrives meanwhile.
		q.busy = true
		q.mu.Unlock()
		if calls := q.take(); calls != nil { // nil: idle again
			q.run(calls)
			q.release()
		}
	} else {
		q.mu.Unlock()
	}
	select {
	case <-c.done:
		return c.resp, c.err
	case <-ctx.Done():
		return fshelper.Response{}, w.helperErr(op, rel, fmt.Errorf("no answer: %w", ctx.Err()))
	}
}

// release ends the leader's run: what waited meanwhile goes on in a
// goroutine of its own, else the queue is idle again.
func (q *queue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		q.busy = false
		return
	}
	go q.drain()
}

// drain runs what waits, in batches, until nothing does.
func (q *queue) drain() {
	for {
		calls := q.take()
		if calls == nil {
			return
		}
		q.run(calls)
	}
}

// take removes the next batch from the queue (at most MaxBatchOps
// operations and about MaxBatchInput bytes of stdin), dropping the
// operations whose callers gave up; nil marks the queue idle.
func (q *queue) take() []*call {
	q.mu.Lock()
	defer q.mu.Unlock()
	var calls []*call
	size := 0
	i := 0
	for ; i < len(q.pending) && len(calls) < fshelper.MaxBatchOps; i++ {
		c := q.pending[i]
		if c.ctx.Err() != nil {
			c.err = c.ctx.Err()
			close(c.done)
			continue
		}
		if len(calls) > 0 && size+len(c.in) > fshelper.MaxBatchInput/2 {
			break
		}
		size += len(c.in)
		calls = append(calls, c)
	}
	q.pending = append([]*call(nil), q.pending[i:]...)
	if len(calls) == 0 && len(q.pending) == 0 {
		q.busy = false
		return nil
	}
	return calls
}

// run runs one batch and hands each caller its answer.
func (q *queue) run(calls []*call) {
	defer func() {
		for _, c := range calls {
			close(c.done)
		}
	}()
	if len(calls) == 0 {
		return
	}
	if len(calls) == 1 {
		c := calls[0]
		c.resp, c.err = c.w.helperNow(c.ctx, c.op, c.rel, c.arg, c.stdin())
		return
	}
	answers, supported, err := runBatch(calls)
	if !supported {
		q.single.Store(true)
		var wg sync.WaitGroup
		for _, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.resp, c.err = c.w.helperNow(c.ctx, c.op, c.rel, c.arg, c.stdin())
			}()
		}
		wg.Wait()
		return
	}
	for i, c := range calls {
		if err != nil {
			c.err = err
			continue
		}
		c.resp, c.err = answers[i].Response, answers[i].err
	}
}

// batchAnswer is one operation's answer in a batch.
type batchAnswer struct {
	fshelper.Response
	err error
}

// runBatch runs calls as one OpBatch in the first call's container. Its
// deadline is the latest of theirs, and it is cancelled once every caller
// has given up. supported is false when the helper does not know OpBatch.
func runBatch(calls []*call) (answers []batchAnswer, supported bool, err error) {
	w := calls[0].w
	ops := make([]fshelper.BatchOp, len(calls))
	var deadline time.Time
	change := fshelper.OpStat
	for i, c := range calls {
		ops[i] = fshelper.BatchOp{Op: c.op, Rel: c.rel, Arg: c.arg, In: c.in}
		d, ok := c.ctx.Deadline()
		if !ok {
			d = time.Now().Add(timeout(c.op, c.arg))
		}
		if d.After(deadline) {
			deadline = d
		}
		if changes(c.op) {
			change = fshelper.OpWrite // starts a stopped container, as each would
		}
	}
	list, err := json.Marshal(ops)
	if err != nil {
		return nil, true, err
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(calls[0].ctx), deadline)
	defer cancel()
	var left atomic.Int32
	left.Store(int32(len(calls)))
	for _, c := range calls {
		stop := context.AfterFunc(c.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
		defer stop()
	}
	w.countCall()
	p, err := w.startedHelper(ctx, change)
	if err != nil {
		return nil, true, w.runErr(ctx, ctx, fshelper.OpBatch, ".", "", len(calls)*MaxAnswerBytes, err)
	}
	// Each operation's answer is bounded as when it runs alone.
	limit := len(calls) * MaxAnswerBytes
	proc := w.helperProc(p, fshelper.OpBatch, ".", "", bytes.NewReader(list))
	proc.Limit = limit
	res, err := w.r.Run(ctx, proc)
	if err != nil {
		return nil, true, w.runErr(ctx, ctx, fshelper.OpBatch, ".", "", limit, err)
	}
	if res.ExitCode == 2 && strings.Contains(string(res.Stderr), "unknown operation") {
		return nil, false, nil
	}
	r, err := w.response(fshelper.OpBatch, ".", res)
	if err != nil {
		return nil, true, err
	}
	if len(r.Batch) != len(calls) {
		return nil, true, w.helperErr(fshelper.OpBatch, ".", fmt.Errorf("%w: %d answers to %d operations", ErrBadAnswer, len(r.Batch), len(calls)))
	}
	answers = make([]batchAnswer, len(calls))
	for i, c := range calls {
		a := r.Batch[i]
		switch {
		case len(a.Batch) != 0:
			answers[i].err = w.helperErr(c.op, c.rel, fmt.Errorf("%w: a batch inside a batch", ErrBadAnswer))
		case a.Error != nil:
			answers[i] = batchAnswer{Response: a, err: a.Error.Err()}
		default:
			if err := checkAnswer(c.op, c.rel, a); err != nil {
				answers[i].err = w.helperErr(c.op, c.rel, fmt.Errorf("%w: %w", ErrBadAnswer, err))
				continue
			}
			answers[i].Response = a
		}
	}
	return answers, true, nil
}
