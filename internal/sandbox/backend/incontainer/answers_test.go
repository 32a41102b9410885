package incontainer

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// fakeRunner stands for a container whose helper was replaced: answer
// writes what the "helper" prints for p to stdout, as a real Runner does
// (stdout kept as Proc.Limit and Proc.Strict say, or streamed to Proc.Out).
type fakeRunner struct {
	answer func(ctx context.Context, p Proc, stdout io.Writer) error
	sent   int64 // bytes the fake helper managed to hand over
}

func (f *fakeRunner) Name() string { return "container fake0123" }

func (f *fakeRunner) Run(ctx context.Context, p Proc) (sandbox.ExecResult, error) {
	buf := &backend.CappedBuffer{Limit: p.Limit, Strict: p.Strict}
	var out io.Writer = buf
	if p.Out != nil {
		out = p.Out
	}
	err := f.answer(ctx, p, countingWriter{out, &f.sent})
	if err != nil {
		return sandbox.ExecResult{}, err
	}
	return sandbox.ExecResult{Stdout: buf.Bytes()}, backend.CheckOutput(buf, &backend.CappedBuffer{})
}

type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// endless writes until the reader refuses or the context ends.
func endless(ctx context.Context, w io.Writer) error {
	chunk := make([]byte, 32<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := w.Write(chunk); err != nil {
			return err
		}
	}
}

func says(s string) func(context.Context, Proc, io.Writer) error {
	return func(_ context.Context, _ Proc, w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func fakeWorkspace(f *fakeRunner) *Workspace {
	w := New(f, "fake", "/workspace", &HelperCache{}, Hooks{})
	w.cache.remember("fake", "/.sandbox-fs-helper/0/sandbox-fs-helper")
	return w
}

// shortDeadlines makes the default deadlines short for one test.
func shortDeadlines(t *testing.T) {
	q, s := QuickTimeout, StreamTimeout
	QuickTimeout, StreamTimeout = 200*time.Millisecond, 300*time.Millisecond
	t.Cleanup(func() { QuickTimeout, StreamTimeout = q, s })
}

// wantNamed checks that err is a timely, bounded error naming the
// container, the operation and the path.
func wantNamed(t *testing.T, err error, start time.Time, op, rel string, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	want := `container fake0123: file helper ` + op + ` "` + rel + `": `
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestHelperAnswerOversized(t *testing.T) {
	f := &fakeRunner{answer: func(ctx context.Context, _ Proc, w io.Writer) error { return endless(ctx, w) }}
	start := time.Now()
	_, err := fakeWorkspace(f).Stat(context.Background(), "a/b")
	wantNamed(t, err, start, "stat", "a/b", "answer exceeds 1 MiB")
	if !errors.Is(err, ErrBadAnswer) {
		t.Errorf("%v does not wrap ErrBadAnswer", err)
	}
	if f.sent > MaxAnswerBytes+64<<10 {
		t.Errorf("read %d bytes of an endless answer", f.sent)
	}

	f = &fakeRunner{answer: func(ctx context.Context, _ Proc, w io.Writer) error { return endless(ctx, w) }}
	start = time.Now()
	_, err = fakeWorkspace(f).WalkFiles(context.Background(), "d")
	wantNamed(t, err, start, "walk", "d", "answer exceeds 64 MiB")
	if f.sent > MaxListAnswerBytes+64<<10 {
		t.Errorf("read %d bytes of an endless answer", f.sent)
	}
}

// A read streams no more than the stat announced: a 5-byte file whose
// helper streams without end yields 5 bytes and an error.
func TestHelperReadBoundedByStat(t *testing.T) {
	f := &fakeRunner{answer: func(ctx context.Context, p Proc, w io.Writer) error {
		if p.Argv[1] == fshelper.OpStat {
			_, err := io.WriteString(w, `{"info":{"Path":"f","IsRegular":true,"Size":5}}`)
			return err
		}
		return endless(ctx, w)
	}}
	var out strings.Builder
	start := time.Now()
	n, err := fakeWorkspace(f).ReadFile(context.Background(), "f", &out, 1<<30)
	wantNamed(t, err, start, "read", "f", "more than the 5 bytes announced")
	if n != 5 || out.Len() != 5 {
		t.Errorf("got %d bytes (%d kept), want 5", n, out.Len())
	}
}

func TestHelperAnswerMalformed(t *testing.T) {
	ctx := context.Background()
	sha := strings.Repeat("a", 64)
	cases := []struct {
		name, answer, op, rel, part string
		call                        func(w *Workspace) error
	}{
		{"not JSON", "garbage", "stat", "a", "malformed answer",
			func(w *Workspace) error { _, err := w.Stat(ctx, "a"); return err }},
		{"unknown field", `{"info":{"Path":"a"},"extra":1}`, "stat", "a", "malformed answer",
			func(w *Workspace) error { _, err := w.Stat(ctx, "a"); return err }},
		{"trailing data", `{"info":{"Path":"a"}} {}`, "stat", "a", "malformed answer",
			func(w *Workspace) error { _, err := w.Stat(ctx, "a"); return err }},
		{"no info", `{}`, "stat", "a", "no file information",
			func(w *Workspace) error { _, err := w.Stat(ctx, "a"); return err }},
		{"another path", `{"info":{"Path":"etc/shadow"}}`, "stat", "a", `information about "etc/shadow"`,
			func(w *Workspace) error { _, err := w.Stat(ctx, "a"); return err }},
		{"negative size", `{"info":{"Path":"a","Size":-1}}`, "stat", "a", "size -1",
			func(w *Workspace) error { _, err := w.Stat(ctx, "a"); return err }},
		{"bad digest", `{"sha256":"zz","size":3}`, "hash", "a", `malformed SHA-256 "zz"`,
			func(w *Workspace) error { _, _, err := w.HashFile(ctx, "a"); return err }},
		{"walk escapes", `{"files":[{"Rel":"../x","SHA256":"` + sha + `"}]}`, "walk", "d", `"../x"`,
			func(w *Workspace) error { _, err := w.WalkFiles(ctx, "d"); return err }},
		{"walk absolute", `{"files":[{"Rel":"/etc/passwd","SHA256":"` + sha + `"}]}`, "walk", "d", `"/etc/passwd"`,
			func(w *Workspace) error { _, err := w.WalkFiles(ctx, "d"); return err }},
		{"walk repeats", `{"files":[{"Rel":"x","SHA256":"` + sha + `"},{"Rel":"x","SHA256":"` + sha + `"}]}`, "walk", "d", `repeated path "x"`,
			func(w *Workspace) error { _, err := w.WalkFiles(ctx, "d"); return err }},
		{"write lies", `{"written":[{"Size":3221225472,"SHA256":"` + sha + `"}]}`, "write", "f", "3221225472 bytes",
			func(w *Workspace) error {
				_, err := w.WriteFile(ctx, "f", strings.NewReader("hello"), 0o644, "")
				return err
			}},
		{"removal keeps unlisted", `{"removal":{"kept":["../../etc"]}}`, "removetree", "d", `"../../etc"`,
			func(w *Workspace) error { _, err := w.RemoveTree(ctx, "d", []string{"a"}); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRunner{answer: func(_ context.Context, p Proc, w io.Writer) error {
				if p.Stdin != nil {
					_, _ = io.Copy(io.Discard, p.Stdin)
				}
				return says(tc.answer)(nil, p, w)
			}}
			start := time.Now()
			err := tc.call(fakeWorkspace(f))
			wantNamed(t, err, start, tc.op, tc.rel, tc.part)
			if !errors.Is(err, ErrBadAnswer) {
				t.Errorf("%v does not wrap ErrBadAnswer", err)
			}
		})
	}
}

func TestHelperNeverAnswers(t *testing.T) {
	shortDeadlines(t)
	never := func(ctx context.Context, p Proc, _ io.Writer) error {
		if p.Stdin != nil {
			go func() { _, _ = io.Copy(io.Discard, p.Stdin) }()
		}
		<-ctx.Done()
		return ctx.Err()
	}
	ctx := context.Background()
	for _, tc := range []struct {
		op, rel, within string
		call            func(w *Workspace) error
	}{
		{"stat", "a", "200ms", func(w *Workspace) error { _, err := w.Stat(ctx, "a"); return err }},
		{"mkdir", "d", "200ms", func(w *Workspace) error { return w.MkdirAll(ctx, "d", 0o755) }},
		{"walk", "d", "300ms", func(w *Workspace) error { _, err := w.WalkFiles(ctx, "d"); return err }},
		{"write", ".", "300ms", func(w *Workspace) error {
			_, err := w.WriteFile(ctx, "f", strings.NewReader("hello"), 0o644, "")
			return err
		}},
		{"persist", ".", "300ms", func(w *Workspace) error { return w.Persist(ctx, nil, io.Discard) }},
	} {
		start := time.Now()
		err := tc.call(fakeWorkspace(&fakeRunner{answer: never}))
		wantNamed(t, err, start, tc.op, tc.rel, "no answer within "+tc.within)
		if !errors.Is(err, ErrBadAnswer) {
			t.Errorf("%v does not wrap ErrBadAnswer", err)
		}
	}
	// A caller's deadline replaces the default.
	QuickTimeout = time.Hour
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := fakeWorkspace(&fakeRunner{answer: never}).Stat(cctx, "a")
	wantNamed(t, err, start, "stat", "a", "no answer: context deadline exceeded")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v does not wrap the caller's deadline", err)
	}
}

// A genuine answer still passes every check.
func TestHelperAnswerValid(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	f := &fakeRunner{answer: func(_ context.Context, p Proc, w io.Writer) error {
		switch p.Argv[1] {
		case fshelper.OpStat:
			return says(`{"info":{"Path":"a/b","IsRegular":true,"Size":5}}`+"\n")(nil, p, w)
		case fshelper.OpWalk:
			return says(`{"files":[{"Rel":"x/y","Size":1,"SHA256":"`+sha+`"}]}`)(nil, p, w)
		}
		return says(`{}`)(nil, p, w)
	}}
	w := fakeWorkspace(f)
	if fi, err := w.Stat(context.Background(), "a/b"); err != nil || fi.Size != 5 {
		t.Fatalf("stat: %+v %v", fi, err)
	}
	if files, err := w.WalkFiles(context.Background(), "d"); err != nil || len(files) != 1 || files[0].Rel != "x/y" {
		t.Fatalf("walk: %+v %v", files, err)
	}
}
