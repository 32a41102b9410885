package fshelper

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// The keep-alive exits at its deadline, and at once when started past it.
func TestKeepAlive(t *testing.T) {
	var stderr bytes.Buffer
	start := time.Now()
	if rc := Main([]string{OpKeepAlive, "2020-01-01T00:00:00Z"}, nil, nil, &stderr); rc != 0 {
		t.Fatalf("past deadline: exit %d, %s", rc, &stderr)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("past deadline: ran %s", d)
	}
	deadline := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second).Add(time.Second)
	start = time.Now()
	if rc := Main([]string{OpKeepAlive, deadline.Format(time.RFC3339)}, nil, nil, &stderr); rc != 0 {
		t.Fatalf("exit %d, %s", rc, &stderr)
	}
	if now := time.Now(); now.Before(deadline) || now.After(deadline.Add(time.Second)) {
		t.Fatalf("exited at %s, deadline %s (started %s)", now, deadline, start)
	}
	stderr.Reset()
	if rc := Main([]string{OpKeepAlive, "tomorrow"}, nil, nil, &stderr); rc != 2 || !strings.Contains(stderr.String(), "keepalive") {
		t.Fatalf("bad deadline: exit %d, %q", rc, &stderr)
	}
}
