package sandbox

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
)

// TestProgress: a sink set receives a summary with the files and bytes
// counted (bytes through Reader), a quick hash gives no summary, and no
// sink means no tracking at all.
func TestProgress(t *testing.T) {
	var (
		mu  sync.Mutex
		got []ProgressReport
	)
	SetProgressSink(func(_ context.Context, r ProgressReport) { mu.Lock(); got = append(got, r); mu.Unlock() })
	defer SetProgressSink(nil)

	p := StartProgress(context.Background(), "copy", "src", 2, 10)
	if _, err := io.Copy(io.Discard, p.Reader(strings.NewReader("0123456789"))); err != nil {
		t.Fatal(err)
	}
	p.Add(2, 0)
	p.Finish(true)
	StartProgress(context.Background(), "hash", "quick", 0, 0).Finish(false)
	if len(got) != 1 {
		t.Fatalf("reports = %+v, want one summary", got)
	}
	r := got[0]
	if !r.Done || r.Files != 2 || r.Bytes != 10 || r.TotalFiles != 2 || r.TotalBytes != 10 {
		t.Fatalf("summary = %+v", r)
	}
	if s := r.String(); !strings.HasPrefix(s, "copy src done in ") || !strings.Contains(s, "2/2 files, 0.0/0.0 MB") {
		t.Fatalf("summary line = %q", s)
	}
	SetProgressSink(nil)
	if p := StartProgress(context.Background(), "copy", "src", 1, 1); p != nil {
		t.Fatal("a progress was tracked with no sink")
	}
}
