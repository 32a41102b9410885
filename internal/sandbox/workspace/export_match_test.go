package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

func TestExportRequireMatch(t *testing.T) {
	files := map[string]string{"res/sub/deep.txt": "d", "res/evil\x1b[2J\nname": "x"}
	for i := range 25 {
		files[fmt.Sprintf("res/f%02d.json", i)] = "{}"
	}
	w, dest := exportFixture(t, files)
	ctx := context.Background()

	_, err := w.Export(ctx, ExportRequest{Paths: []string{"res/score.json", "res/*.json"}, Destination: dest,
		Require: []string{"res/score.json"}})
	var nm *NoMatchError
	if !errors.As(err, &nm) || nm.Glob != "res/score.json" || nm.Dir != "res" || nm.Missing {
		t.Fatalf("Export = %v, want a NoMatchError on res/score.json", err)
	}
	msg := err.Error()
	// 27 names (sub/ among them): the first 20 in order, control characters escaped.
	for _, want := range []string{`paths glob "res/score.json" matched no file; directory "res" holds: "evil\x1b[2J\nname", "f00.json",`,
		`"f18.json" and 7 more`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not hold %q", msg, want)
		}
	}
	if strings.ContainsAny(msg, "\x1b\n") || strings.Contains(msg, "f19.json") {
		t.Errorf("error %q holds a raw control character or more than 20 names", msg)
	}
	if _, serr := os.Stat(dest); !os.IsNotExist(serr) {
		t.Errorf("a refused export created its destination (%v)", serr)
	}

	_, err = w.Export(ctx, ExportRequest{Paths: []string{"gone/*.xml"}, Destination: dest, Require: []string{"gone/*.xml"}})
	if !errors.As(err, &nm) || !nm.Missing || !strings.Contains(err.Error(), `directory "gone" does not exist in the workspace`) {
		t.Fatalf("Export = %v, want the missing directory named", err)
	}

	_, err = w.Export(ctx, ExportRequest{Paths: []string{"res/*.json"}, Destination: dest, MinFiles: 26})
	var few *TooFewFilesError
	if !errors.As(err, &few) || few.Found != 25 {
		t.Fatalf("Export = %v, want TooFewFilesError with 25 found", err)
	}

	res, err := w.Export(ctx, ExportRequest{Paths: []string{"res/*.json", "nothing/*"}, Destination: dest,
		Require: []string{"res/*.json"}, MinFiles: 25})
	if err != nil || len(res.Files) != 25 {
		t.Fatalf("Export = %d files, %v", len(res.Files), err)
	}
}

func TestLiteralGlob(t *testing.T) {
	for g, want := range map[string]bool{"results/score.json": true, "out/*.json": false, "out/**": false, "a/b?": false, "x/[ab]": false} {
		if LiteralGlob(g) != want {
			t.Errorf("LiteralGlob(%q) = %v", g, !want)
		}
	}
}

// A file named after a write-only value the provider was given (an agent
// that read a secret and wrote it into a name) is listed REDACTED by the
// export's no-match error, as SafeName shows it anywhere else.
func TestExportNoMatchRedactsSecretNames(t *testing.T) {
	const secret = "SuperSecretValue123-no-match"
	redact.NoteWriteOnly("sandbox_file.content_wo", secret)
	w, dest := exportFixture(t, map[string]string{"out/" + secret: "x", "out/x.txt": "y"})
	_, err := w.Export(context.Background(), ExportRequest{Paths: []string{"out/verdict.json"}, Destination: dest,
		Require: []string{"out/verdict.json"}})
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), `"REDACTED"`) {
		t.Fatalf("Export = %v; want a no-match error listing the secret's name as REDACTED", err)
	}
	if got := SafeName("out/" + secret + "\n"); got != `out/REDACTED\x0a` {
		t.Fatalf("SafeName = %q", got)
	}
}
