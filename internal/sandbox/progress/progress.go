package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Interval is how long a copy or a hash runs before its progress is
// reported, and how often it is reported after that.
const Interval = 2 * time.Second

// Report is the state of one long copy or hash.
type Report struct {
	// Op is "copy" or "hash"; What names the source or the target.
	Op, What string
	// Files and Bytes are done so far; TotalFiles and TotalBytes are what
	// the operation covers, 0 when not known in advance.
	Files, TotalFiles, Bytes, TotalBytes int64
	// Elapsed is the time since the operation started.
	Elapsed time.Duration
	// Done is set on the summary at the end.
	Done bool
}

// MBps is the throughput in megabytes (10^6 bytes) per second.
func (r Report) MBps() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Bytes) / 1e6 / r.Elapsed.Seconds()
}

// String is the report as one line: "copy src: 120/10000 files, 3.1/216.0 MB, 45.2 MB/s".
func (r Report) String() string {
	of := func(n, total int64, scale float64, unit string) string {
		if total > 0 {
			return fmt.Sprintf("%.*f/%.*f %s", prec(scale), float64(n)/scale, prec(scale), float64(total)/scale, unit)
		}
		return fmt.Sprintf("%.*f %s", prec(scale), float64(n)/scale, unit)
	}
	state := "in progress"
	if r.Done {
		state = "done in " + r.Elapsed.Round(10*time.Millisecond).String()
	}
	scale, unit := 1e6, "MB"
	switch most := max(r.Bytes, r.TotalBytes); { // a tree of small files would read 0.0/0.0 MB
	case most < 1e3:
		scale, unit = 1, "B"
	case most < 1e6:
		scale, unit = 1e3, "kB"
	}
	return fmt.Sprintf("%s %s %s: %s, %s, %.1f MB/s", r.Op, r.What, state, of(r.Files, r.TotalFiles, 1, "files"), of(r.Bytes, r.TotalBytes, scale, unit), r.MBps())
}

func prec(scale float64) int {
	if scale == 1 {
		return 0
	}
	return 1
}

// Sink receives progress reports, with the context of the
// operation they are about (the provider logs them).
type Sink func(ctx context.Context, r Report)

var sink atomic.Pointer[Sink]

// SetSink makes s receive every progress report of this process
// (nil: none).
func SetSink(s Sink) {
	if s == nil {
		sink.Store(nil)
		return
	}
	sink.Store(&s)
}

// Progress tracks one copy or hash; its methods may be called from several
// goroutines. A nil *Progress tracks nothing.
type Progress struct {
	ctx   context.Context
	sink  Sink
	start time.Time

	files, bytes atomic.Int64
	mu           sync.Mutex
	r            Report
	next         time.Time
}

// Start starts tracking an operation; it returns nil when no sink
// is set.
func Start(ctx context.Context, op, what string, totalFiles, totalBytes int64) *Progress {
	s := sink.Load()
	if s == nil {
		return nil
	}
	now := time.Now()
	return &Progress{ctx: ctx, sink: *s, start: now, next: now.Add(Interval),
		r: Report{Op: op, What: what, TotalFiles: totalFiles, TotalBytes: totalBytes}}
}

// Add counts files and bytes done, and reports when the interval since the
// last report (or the start) has passed.
func (p *Progress) Add(files, bytes int64) {
	if p == nil {
		return
	}
	f, b := p.files.Add(files), p.bytes.Add(bytes)
	now := time.Now()
	p.mu.Lock()
	if now.Before(p.next) {
		p.mu.Unlock()
		return
	}
	p.next = now.Add(Interval)
	r := p.r
	p.mu.Unlock()
	r.Files, r.Bytes, r.Elapsed = f, b, now.Sub(p.start)
	p.sink(p.ctx, r)
}

// Finish reports the summary: always when always is set (a copy), else only
// when the operation ran longer than Interval.
func (p *Progress) Finish(always bool) {
	if p == nil {
		return
	}
	r := p.r
	r.Files, r.Bytes, r.Elapsed, r.Done = p.files.Load(), p.bytes.Load(), time.Since(p.start), true
	if always || r.Elapsed >= Interval {
		p.sink(p.ctx, r)
	}
}

// Reader counts the bytes read from r as done.
func (p *Progress) Reader(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	return &progressReader{r: r, p: p}
}

type progressReader struct {
	r io.Reader
	p *Progress
}

func (pr *progressReader) Read(b []byte) (int, error) {
	n, err := pr.r.Read(b)
	pr.p.Add(0, int64(n))
	return n, err
}

// SourceFile is the open file the reader reads from, nil when it reads
// from something else: a write may copy its bytes inside the kernel
// (copy_file_range) instead of reading them, and then reports them with
// Copied.
func (pr *progressReader) SourceFile() *os.File {
	f, _ := pr.r.(*os.File)
	return f
}

// Copied counts n bytes taken from SourceFile without Read as done.
func (pr *progressReader) Copied(n int64) { pr.p.Add(0, n) }
