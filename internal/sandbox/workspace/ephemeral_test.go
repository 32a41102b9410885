package workspace

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
)

const ephemeralAttr = local.RecordAttrPrefix + "ephemeral"

func TestEphemeralRecord(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	// A workspace without a record (one made by an earlier version) has
	// nothing ephemeral.
	if got, err := w.EphemeralPaths(ctx); err != nil || len(got) != 0 {
		t.Fatalf("no record: %v, %v", got, err)
	}
	// Concurrent updates of one workspace all land.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.RecordEphemeral(ctx, EntryOwner(fmt.Sprint("e", i)), []string{fmt.Sprintf("./e%02d//", i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := w.RecordEphemeral(ctx, ManifestOwner("m"), []string{"scratch", "e01"}); err != nil {
		t.Fatal(err)
	}
	got, err := w.EphemeralPaths(ctx)
	if err != nil || len(got) != 21 || got[0] != "e00" || got[19] != "e19" || got[20] != "scratch" {
		t.Fatalf("recorded %v, %v", got, err)
	}
	// The record is read through another handle (another configuration).
	w2, err := eng.Open(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := w2.EphemeralPaths(ctx); err != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("reopened: %v, %v", again, err)
	}
	for _, bad := range []string{"../x", "/etc", ".", ""} {
		if err := w.RecordEphemeral(ctx, EntryOwner(bad), []string{bad}); err == nil {
			t.Fatalf("%q was recorded", bad)
		}
	}
	for i := range 20 {
		if err := w.RecordEphemeral(ctx, EntryOwner(fmt.Sprint("e", i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.RecordEphemeral(ctx, ManifestOwner("m"), nil); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 128)
	if _, err := unix.Getxattr(w.Root, ephemeralAttr, buf); !errors.Is(err, unix.ENODATA) {
		t.Fatalf("the last owner gone, the attribute is still there: %v", err)
	}
}

// A record edited behind the provider's back is untrusted: paths that name
// nothing inside the workspace are ignored, an oversized or malformed
// record is an error, and neither reaches the backend.
func TestEphemeralRecordTampered(t *testing.T) {
	eng, _ := newEngine(t)
	ctx := context.Background()
	w, err := eng.CreateLocal(ctx, LocalSpec{})
	if err != nil {
		t.Fatal(err)
	}
	set := func(v string) {
		t.Helper()
		if err := unix.Setxattr(w.Root, ephemeralAttr, []byte(v), 0); err != nil {
			t.Fatal(err)
		}
	}
	set(`{"version":1,"owners":{"x":["../../etc","/etc","/",".","..","a/../../b","C:/w","ok/./y","ok/y"],"z":null}}`)
	if got, err := w.EphemeralPaths(ctx); err != nil || !reflect.DeepEqual(got, []string{"ok/y"}) {
		t.Fatalf("tampered record: %v, %v", got, err)
	}
	for _, junk := range []string{"not json", `{"version":2,"owners":{}}`, `{"version":1,"owners":{"x":"y"}}`} {
		set(junk)
		if _, err := w.EphemeralPaths(ctx); !errors.Is(err, ErrEphemeralRecord) {
			t.Fatalf("%s: %v", junk, err)
		}
		if err := w.RecordEphemeral(ctx, EntryOwner("a"), []string{"a"}); !errors.Is(err, ErrEphemeralRecord) {
			t.Fatalf("recording on top of %s: %v", junk, err)
		}
	}
	big := `{"version":1,"owners":{"x":["` + strings.Repeat("a", MaxEphemeralRecord) + `"]}}`
	if err := unix.Setxattr(w.Root, ephemeralAttr, []byte(big), 0); err != nil {
		t.Logf("the filesystem keeps no %d-byte attribute (%v): the oversized record is tested in a container", len(big), err)
		return
	}
	if _, err := w.EphemeralPaths(ctx); !errors.Is(err, ErrEphemeralRecord) || !strings.Contains(err.Error(), "more than 65536 bytes") {
		t.Fatalf("oversized record: %v", err)
	}
}
