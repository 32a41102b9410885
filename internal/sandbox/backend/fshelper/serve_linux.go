//go:build linux

package fshelper

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/local"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/proctree"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
	"golang.org/x/sys/unix"
)

// Main runs one helper operation (args as documented in the package doc)
// and returns the process exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == OpVersion {
		return emit(stdout, stderr, Response{Version: Version})
	}
	if len(args) == 2 && args[0] == OpKeepAlive {
		return keepAlive(args[1], stderr)
	}
	if len(args) == 2 && args[0] == OpEgress {
		return egressMain(args[1], stdin, stdout, stderr)
	}
	if len(args) >= 1 && args[0] == OpProbe {
		return probe(args[1:], stderr)
	}
	if len(args) >= 5 && args[0] == OpRun {
		return runAs(args[1:], stderr)
	}
	pinDigestCache() // not for OpRun: its command gets only its own environment
	if len(args) < 3 || !filepath.IsAbs(args[1]) {
		fmt.Fprintf(stderr, "usage: %s <op> <absolute root> <rel> [arg]\n", HelperName)
		return 2
	}
	op, rel, arg := args[0], args[2], ""
	if len(args) > 3 {
		arg = args[3]
	}
	if Sealed(op, arg) {
		// Undumpable first: no process of the same user may attach to
		// this one or open its stdin once the key is on its way.
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		key, err := readSealLine(stdin)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		if key == nil {
			_ = os.Setenv(digestcache.Env, "off")
		}
		digestcache.SetKey(key)
	}
	switch op {
	case OpPersist:
		return persist(args[1], arg, stdout, stderr)
	case OpRead:
		return readOut(args[1], rel, arg, stdout, stderr)
	case OpExport:
		return exportOut(args[1], stdin, stdout, stderr)
	case OpBatch:
		resp, err := runBatch(context.Background(), local.New(args[1]).CacheFileDigests(), stdin)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		return emit(stdout, stderr, resp)
	}
	resp, err := run(context.Background(), local.New(args[1]).CacheFileDigests(), op, rel, arg, stdin)
	if errors.Is(err, errUsage) {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if err != nil {
		resp = Response{Error: ErrorFrom(err)}
	}
	return emit(stdout, stderr, resp)
}

// pinDigestCache puts the digest cache in DigestDir when the helper runs
// from HelperDir (in a container); elsewhere (tests on the host) the
// environment decides, as for the provider.
func pinDigestCache() {
	if exe, err := os.Executable(); err == nil && strings.HasPrefix(exe, HelperDir+"/") {
		_ = os.Setenv(digestcache.Env, DigestDir)
	}
}

func emit(stdout, stderr io.Writer, r Response) int {
	if err := json.NewEncoder(stdout).Encode(r); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

func parseMode(arg string) (fs.FileMode, error) {
	n, err := strconv.ParseUint(arg, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%w: bad mode %q", errUsage, arg)
	}
	return fs.FileMode(n), nil
}

func run(ctx context.Context, b *local.Backend, op, rel, arg string, stdin io.Reader) (Response, error) {
	switch op {
	case OpInit:
		return Response{}, b.EnsureRoot(ctx)
	case OpStat:
		return statOp(ctx, b, rel, arg)
	case OpMkEntry:
		return Response{}, mkEntry(ctx, b, rel, arg)
	case OpMkdir, OpChmod:
		m, err := parseMode(arg)
		if err != nil {
			return Response{}, err
		}
		if op == OpMkdir {
			if err := b.EnsureRoot(ctx); err != nil {
				return Response{}, err
			}
			return Response{}, b.MkdirAll(ctx, rel, m)
		}
		return Response{}, b.Chmod(ctx, rel, m)
	case OpChgrp:
		return Response{}, b.Chgrp(ctx, rel, arg)
	case OpChown, OpChownTree:
		owner, group, ok := strings.Cut(arg, ":")
		if !ok {
			return Response{}, fmt.Errorf("%w: bad owner %q (want <owner>:<group>)", errUsage, arg)
		}
		if rel == "." {
			// The root given to its owner after a deletion inside the
			// running container comes back first, as for OpMkdir.
			if err := b.EnsureRoot(ctx); err != nil {
				return Response{}, err
			}
		}
		return Response{}, b.Chown(ctx, rel, owner, group, op == OpChownTree)
	case OpHash:
		sum, n, err := b.HashFile(ctx, rel)
		return Response{SHA256: sum, Size: n}, err
	case OpWalk:
		files, err := b.WalkFiles(ctx, rel)
		return Response{Files: files}, err
	case OpRemove:
		return Response{}, b.Remove(ctx, rel)
	case OpRemoveAll:
		return Response{}, b.RemoveAll(ctx, rel)
	case OpWrite:
		if err := b.EnsureRoot(ctx); err != nil {
			_, _ = io.Copy(io.Discard, stdin)
			return Response{}, err
		}
		written, err := writeTar(ctx, b, stdin)
		return Response{Written: written}, err
	case OpRemoveTree:
		var files []string
		if err := json.NewDecoder(stdin).Decode(&files); err != nil {
			return Response{}, fmt.Errorf("%w: reading the file list: %w", errUsage, err)
		}
		rep, err := b.RemoveTree(ctx, rel, files)
		return Response{Removal: &rep}, err
	case OpHydrate:
		if err := b.EnsureRoot(ctx); err != nil {
			return Response{}, err
		}
		sum, err := snapshot.Extract(ctx, b.Root(), stdin, true, ParseHydrateArg(arg))
		return Response{Size: int64(sum.FileCount)}, err
	case OpKillEnv:
		procs, err := proctree.KillByEnv(ExecTokenEnv + "=" + arg)
		return Response{Size: int64(len(procs)), Killed: procs}, err
	case OpOOMKills:
		return Response{Size: oomKills()}, nil
	}
	return Response{}, fmt.Errorf("%w: unknown operation %q", errUsage, op)
}

// stdinBufSize is how much of a write's tar stream is read from stdin at
// once: the tar reader reads each header (512 bytes) and each padding on
// its own, a system call each on an unbuffered pipe.
const stdinBufSize = 256 << 10

// writeTar writes every regular-file member of the tar stream on in as one
// local.Backend.WriteBatch, then drains in. A stream not already in memory
// (a batched write's) is read through a buffer.
func writeTar(ctx context.Context, b *local.Backend, in io.Reader) ([]sandbox.WriteResult, error) {
	r := in
	if _, mem := in.(*bytes.Reader); !mem {
		r = bufio.NewReaderSize(in, stdinBufSize)
	}
	tr := tar.NewReader(r)
	var metas []pendingMeta
	written, err := b.WriteBatch(ctx, func() (local.BatchItem, error) {
		hdr, err := tr.Next()
		if err != nil {
			return local.BatchItem{}, err
		}
		if hdr.Typeflag != tar.TypeReg {
			return local.BatchItem{}, fmt.Errorf("write %s: only regular files can be written (tar type %q)", hdr.Name, hdr.Typeflag)
		}
		perm := hdr.FileInfo().Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		if err := notePendingMeta(ctx, b, &metas, hdr); err != nil {
			return local.BatchItem{}, err
		}
		return local.BatchItem{Rel: hdr.Name, Perm: perm, SHA256: hdr.PAXRecords[PAXSHA256], R: tr,
			ReplaceEmptyDir: hdr.PAXRecords[PAXReplaceEmptyDir] == "1"}, nil
	})
	_, _ = io.Copy(io.Discard, r)
	if err == nil {
		err = applyPendingMeta(ctx, b, metas)
	}
	if written == nil {
		written = []sandbox.WriteResult{}
	}
	return written, err
}
