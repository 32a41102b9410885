package progress

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
		got []Report
	)
	SetSink(func(_ context.Context, r Report) { mu.Lock(); got = append(got, r); mu.Unlock() })
	defer SetSink(nil)

	p := Start(context.Background(), "copy", "src", 2, 10)
	if _, err := io.Copy(io.Discard, p.Reader(strings.NewReader("0123456789"))); err != nil {
		t.Fatal(err)
	}
	p.Add(2, 0)
	p.Finish(true)
	Start(context.Background(), "hash", "quick", 0, 0).Finish(false)
	if len(got) != 1 {
		t.Fatalf("reports = %+v, want one summary", got)
	}
	r := got[0]
	if !r.Done || r.Files != 2 || r.Bytes != 10 || r.TotalFiles != 2 || r.TotalBytes != 10 {
		t.Fatalf("summary = %+v", r)
	}
	if s := r.String(); !strings.HasPrefix(s, "copy src done in ") || !strings.Contains(s, "2/2 files, 10/10 B") {
		t.Fatalf("summary line = %q", s)
	}
	for _, c := range []struct {
		done, total int64
		want        string
	}{{14940, 14940, "14.9/14.9 kB"}, {3 << 20, 300 << 20, "3.1/314.6 MB"}, {999, 0, "999 B"}} {
		if s := (Report{Op: "copy", What: "t", Bytes: c.done, TotalBytes: c.total}).String(); !strings.Contains(s, ", "+c.want+",") {
			t.Errorf("line for %d of %d bytes = %q, want %q", c.done, c.total, s, c.want)
		}
	}
	SetSink(nil)
	if p := Start(context.Background(), "copy", "src", 1, 1); p != nil {
		t.Fatal("a progress was tracked with no sink")
	}
}
