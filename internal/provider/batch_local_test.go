package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// 200 files of one local workspace applied at -parallelism=50, one of them
// with a group this machine has no account for: that one alone fails, with
// its own error naming its path and group; the 199 others are written with
// their content, mode 0640 and owner (read back with stat and a read of
// each), the failed one leaves nothing behind, a refresh finds no drift and
// the next plan creates the failed one alone. With it fixed the apply
// completes all 200, the next plan is empty, and destroying the files
// removes all of them from the workspace directory.
//
// The files are given to nobody when the provider runs as root (else to
// its own user). No owner can be wrong at the apply alone here: the plan
// (during the apply too, once the workspace exists) looks the owner up in
// the same accounts as the chown does, and root may chown to any uid. The
// group is looked up by the chown only, so an unknown group makes that one
// file's entry operation fail in the workspace.
func TestAccBatch_local200Files(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	owner := "nobody"
	if os.Geteuid() != 0 {
		u, err := user.Current()
		must(t, err)
		owner = u.Username
	}
	u, err := user.Lookup(owner)
	must(t, err)
	runBatch(t, batchCase{
		config:    env.config,
		spec:      batchSpec{owner: owner, badGroup: "no-such-group-137"},
		wantOwner: u.Uid,
		refused:   "no-such-group-137",
		list: func(t *testing.T, ws map[string]any) map[string]batchEntry {
			return listLocal(t, filepath.Join(batchAttr(t, ws, "root"), "f"))
		},
		gone: func(t *testing.T, ws map[string]any) {
			if _, err := os.Lstat(batchAttr(t, ws, "root")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the workspace directory is still there after destroy (%v)", err)
			}
		},
	})
}

// listLocal reads back every name of dir as batchListScript does, the
// owner as a decimal uid; nothing when dir does not exist.
func listLocal(t *testing.T, dir string) map[string]batchEntry {
	t.Helper()
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	must(t, err)
	got := map[string]batchEntry{}
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		fi, err := os.Lstat(p)
		must(t, err)
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			t.Fatalf("no owner for %s", p)
		}
		sum := "-"
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			must(t, err)
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:])
		}
		got[de.Name()] = batchEntry{mode: fmt.Sprintf("%o", fi.Mode().Perm()), owner: strconv.FormatUint(uint64(st.Uid), 10), sha256: sum}
	}
	return got
}
