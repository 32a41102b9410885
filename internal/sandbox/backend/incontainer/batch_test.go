package incontainer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// helperRunner runs the real helper (fshelper.Main) in this process on a
// host directory standing for the container's workspace root, each run
// taking latency, as an exec round trip does; oldHelper makes it answer
// OpBatch as a helper that predates it.
type helperRunner struct {
	dir       string
	latency   time.Duration
	oldHelper bool
	procs     atomic.Int64
	batches   atomic.Int64
	mu        sync.Mutex // one helper at a time: Main sets process-wide state
}

func (h *helperRunner) Name() string { return "container batch0123" }

func (h *helperRunner) Run(ctx context.Context, p Proc) (sandbox.ExecResult, error) {
	h.procs.Add(1)
	time.Sleep(h.latency)
	args := append([]string(nil), p.Argv[1:]...)
	if len(args) > 1 && args[1] == "/workspace" {
		args[1] = h.dir
	}
	var stdout, stderr bytes.Buffer
	if len(args) > 0 && args[0] == fshelper.OpBatch {
		h.batches.Add(1)
		if h.oldHelper {
			return sandbox.ExecResult{ExitCode: 2, Stderr: []byte(`usage error: unknown operation "batch"`)}, nil
		}
	}
	h.mu.Lock()
	code := fshelper.Main(args, p.Stdin, &stdout, &stderr)
	h.mu.Unlock()
	return sandbox.ExecResult{ExitCode: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, ctx.Err()
}

func helperWorkspace(t *testing.T, key string, old bool) (*Workspace, *helperRunner) {
	t.Helper()
	key = uniqueKey(t, key)
	h := &helperRunner{dir: t.TempDir(), latency: 20 * time.Millisecond, oldHelper: old}
	t.Setenv("SANDBOX_DIGEST_CACHE", "off")
	w := New(h, key, "/workspace", &HelperCache{}, Hooks{})
	w.cache.remember(key, "/.sandbox-fs-helper/0/sandbox-fs-helper")
	return w, h
}

// writeConcurrently writes n files at once, the one at bad with an owner
// that does not exist, and returns each one's error.
func writeConcurrently(w *Workspace, n, bad int) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := ""
			if i == bad {
				owner = "no-such-user-batch"
			}
			content := fmt.Sprintf("file %d\n", i)
			_, errs[i] = w.WriteFileMeta(context.Background(), fmt.Sprintf("f/%d.txt", i), strings.NewReader(content), 0o640, owner, "", "")
		}()
	}
	wg.Wait()
	return errs
}

func TestQueue_concurrentWritesOneFails(t *testing.T) {
	w, h := helperWorkspace(t, "batch-writes", false)
	const n, bad = 120, 77
	errs := writeConcurrently(w, n, bad)
	for i, err := range errs {
		if (i == bad) != (err != nil) {
			t.Fatalf("file %d: error %v (only file %d must fail)", i, err, bad)
		}
	}
	if !strings.Contains(errs[bad].Error(), "no-such-user-batch") {
		t.Fatalf("the failed write's error does not name its owner: %v", errs[bad])
	}
	for i := range n {
		p := filepath.Join(h.dir, "f", fmt.Sprintf("%d.txt", i))
		b, err := os.ReadFile(p)
		if i == bad {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the failed file was left behind: %v", err)
			}
			continue
		}
		if err != nil || string(b) != fmt.Sprintf("file %d\n", i) {
			t.Fatalf("file %d reads %q, %v", i, b, err)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Fatalf("file %d has mode %v", i, fi.Mode())
		}
	}
	if got := h.procs.Load(); got > n/4 || h.batches.Load() == 0 {
		t.Fatalf("%d concurrent writes took %d helper processes (%d batches); want batches and at most %d", n, got, h.batches.Load(), n/4)
	}
	t.Logf("%d writes: %d helper processes, %d of them batches", n, h.procs.Load(), h.batches.Load())

	// A concurrent refresh of them all, then a concurrent removal.
	h.procs.Store(0)
	var wg sync.WaitGroup
	sums := make([]string, n)
	serrs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, sums[i], _, serrs[i] = w.StatHash(context.Background(), fmt.Sprintf("f/%d.txt", i))
		}()
	}
	wg.Wait()
	for i := range n {
		if i == bad {
			if !errors.Is(serrs[i], backend.ErrNotExist) {
				t.Fatalf("stat of the missing file: %v, want not-exist", serrs[i])
			}
			continue
		}
		if serrs[i] != nil || sums[i] != sha256Hex(fmt.Sprintf("file %d\n", i)) {
			t.Fatalf("stat %d: %q %v", i, sums[i], serrs[i])
		}
	}
	if got := h.procs.Load(); got > n/4 {
		t.Fatalf("%d concurrent stats took %d helper processes", n, got)
	}
	h.procs.Store(0)
	rerrs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rerrs[i] = w.Remove(context.Background(), fmt.Sprintf("f/%d.txt", i))
		}()
	}
	wg.Wait()
	for i, err := range rerrs {
		if err != nil {
			t.Fatalf("remove %d: %v", i, err)
		}
	}
	left, _ := os.ReadDir(filepath.Join(h.dir, "f"))
	if len(left) != 0 || h.procs.Load() > n/4 {
		t.Fatalf("after the removal: %d files left, %d helper processes", len(left), h.procs.Load())
	}
}

// A helper that predates OpBatch still serves every operation, one by one.
func TestQueue_oldHelperRunsOneByOne(t *testing.T) {
	w, h := helperWorkspace(t, "batch-old", true)
	errs := writeConcurrently(w, 30, 5)
	for i, err := range errs {
		if (i == 5) != (err != nil) {
			t.Fatalf("file %d: error %v", i, err)
		}
	}
	if h.batches.Load() != 1 {
		t.Fatalf("%d batches tried; the first refusal must be remembered", h.batches.Load())
	}
	if !w.queue().single.Load() {
		t.Fatal("the queue did not fall back to single operations")
	}
}

// batchOfTwo runs a stat of "a" alone, then stats of "b" and "c" that
// arrive while it runs and so go as one batch, against a helper that
// answers a batch with batch(ctx, p, out) and a lone stat of "a" once the
// two wait. It returns the lone stat's error, then the two batched ones'.
func batchOfTwo(t *testing.T, key string, batch func(ctx context.Context, p Proc, out io.Writer) error) (*fakeRunner, []error) {
	t.Helper()
	key = uniqueKey(t, key)
	release := make(chan struct{})
	f := &fakeRunner{answer: func(ctx context.Context, p Proc, out io.Writer) error {
		if p.Argv[1] == fshelper.OpBatch {
			return batch(ctx, p, out)
		}
		<-release
		_, err := io.WriteString(out, `{"info":{"path":"a"}}`)
		return err
	}}
	w := New(f, key, "/workspace", &HelperCache{}, Hooks{})
	w.cache.remember(key, "/.sandbox-fs-helper/0/sandbox-fs-helper")
	first := make(chan error, 1)
	go func() { _, err := w.Stat(context.Background(), "a"); first <- err }()
	for !w.queue().isBusy() {
		time.Sleep(time.Millisecond)
	}
	errs := make(chan error, 2)
	for _, rel := range []string{"b", "c"} {
		go func() { _, err := w.Stat(context.Background(), rel); errs <- err }()
	}
	for w.queue().waiting() < 2 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	firstErr := <-first
	return f, []error{firstErr, <-errs, <-errs}
}

// uniqueKey makes key one container's alone for this run of the test:
// queues are kept per container for the life of the process.
func uniqueKey(t *testing.T, key string) string {
	return key + "-" + t.TempDir()
}

// An answer that does not answer each operation fails them all.
func TestQueue_batchAnswerChecked(t *testing.T) {
	_, errs := batchOfTwo(t, "batch-answers", func(_ context.Context, _ Proc, out io.Writer) error {
		_, err := io.WriteString(out, `{"batch":[{"info":{"path":"elsewhere"}}]}`)
		return err
	})
	if errs[0] != nil {
		t.Fatalf("the first stat: %v", errs[0])
	}
	for _, err := range errs[1:] {
		if !errors.Is(err, ErrBadAnswer) {
			t.Fatalf("a batch answering 1 of 2 operations: %v, want ErrBadAnswer", err)
		}
	}
}

// A batch answer is bounded as its operations' answers would be alone:
// an endless one is cut at that bound and fails every operation in it.
func TestQueue_batchAnswerBounded(t *testing.T) {
	f, errs := batchOfTwo(t, "batch-bounded", func(ctx context.Context, p Proc, out io.Writer) error {
		if p.Limit != 2*MaxAnswerBytes {
			t.Errorf("a batch of 2 answers up to %d bytes, want %d", p.Limit, 2*MaxAnswerBytes)
		}
		return endless(ctx, out)
	})
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	for _, err := range errs[1:] {
		if !errors.Is(err, ErrBadAnswer) {
			t.Fatalf("an endless batch answer: %v, want ErrBadAnswer", err)
		}
	}
	if f.sent > 3*MaxAnswerBytes {
		t.Fatalf("%d bytes of the answer were taken in", f.sent)
	}
}

// isBusy and waiting tell tests where a queue stands.
func (q *queue) isBusy() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.busy
}

func (q *queue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
