// Package fshelper is the in-container half of the Docker backend's file
// operations: a small program, run by `docker exec` inside a workspace
// container, that performs one operation on the workspace with the local
// backend's code (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS resolution
// below the root, atomic streamed writes, explicit chmod) and prints one
// JSON Response on stdout.
//
// A binary serves as the helper when it is run under the name HelperName
// (the argv[0] re-exec pattern) and its main checks Invoked first, as the
// provider's main does, then runs Main and exits. The Docker
// backend copies such a binary (statically linked, CGO_ENABLED=0) into each
// container once, at HelperDir, outside the workspace.
//
// Command line: `sandbox-fs-helper <op> <root> <rel> [arg]`, where op is one
// of the Op* constants, root the absolute workspace root inside the
// container and rel a workspace-relative path. OpWrite reads a tar stream on
// stdin: one regular-file member per file, named by its workspace-relative
// path, with its permission bits as the member mode and the expected
// SHA-256 (hex) in the PAX record PAXSHA256. The exit status is 0 whenever a
// Response was printed, including one carrying an Error; 2 means a usage
// error (message on stderr).
package fshelper

import (
	"errors"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/proctree"
)

// HelperName is the argv[0] base name that selects the helper mode.
const HelperName = "sandbox-fs-helper"

// HelperDir is the directory inside a container that holds helper binaries,
// one per helper digest: <HelperDir>/<first 16 hex of sha256>/sandbox-fs-helper.
const HelperDir = "/.sandbox-fs-helper"

// DigestDir is where the helper keeps its digest cache in a container (see
// package digestcache): beside HelperDir (which is read-only), outside every workspace
// root and every home directory, whatever the container's environment
// says, so a refresh of a copied tree or of a single file (OpStat with
// StatHash, OpHash) stats instead of reading, and what a plan writes is
// only this cache.
const DigestDir = "/.sandbox-fs-digests"

// PAXSHA256 is the PAX record of an OpWrite tar member holding the expected
// SHA-256 (hex) of its content; absent or empty skips the check.
const PAXSHA256 = "SANDBOX.sha256"

// PAXReplaceEmptyDir is the PAX record ("1") of an OpWrite tar member whose
// path may hold a directory of empty directories, removed to make room
// (backend.BatchFile.ReplaceEmptyDir).
const PAXReplaceEmptyDir = "SANDBOX.replace_empty_dir"

// OpRun runs a command as another user, for container runtimes whose exec
// takes no user, working directory or environment (the Kubernetes exec
// API): `sandbox-fs-helper run <user> <workdir> <env JSON> <argv...>`. The
// helper, started as root, takes the user's identity (its uid, its primary
// group or the one named, and every group /etc/group lists it in, as
// `docker exec --user` does), changes to workdir, adds the environment
// (a JSON list of "NAME=value"; HOME is the user's home unless given) and
// replaces itself with argv, so the command's stdio, exit status and
// signals are the command's own. user is a name or uid, optionally
// ":group" (a name or gid); "" keeps root. Failures before the command
// starts print to stderr and exit 126 (not runnable) or 127 (not found),
// as a shell does.
const OpRun = "run"

// Operations understood by the helper; each maps to the backend.Backend
// method of the same meaning. OpMkdir, OpWrite and OpChown of the root
// first re-create a root deleted inside the running container (mkdir -p,
// mode 0755, as OpInit),
// so entries are applied into a live container whatever happened to its
// root.
const (
	OpVersion    = "version"    // prints Response{Version}
	OpInit       = "init"       // mkdir -p root (0755), refusing a symlink or non-directory
	OpStat       = "stat"       // Response.Info; arg "hash": also Response.SHA256 and Size of a regular file
	OpMkdir      = "mkdir"      // arg: decimal fs.FileMode
	OpChmod      = "chmod"      // arg: decimal fs.FileMode
	OpChgrp      = "chgrp"      // arg: group name or decimal gid
	OpChown      = "chown"      // arg: <owner>:<group>, names or decimal ids; "" owner leaves it alone, "" group with an owner is its primary group
	OpChownTree  = "chowntree"  // as OpChown, for rel and every directory and file below it
	OpHash       = "hash"       // Response.SHA256, Response.Size
	OpWalk       = "walk"       // Response.Files
	OpRemove     = "remove"     // file or empty directory
	OpRemoveAll  = "removeall"  // tree, no symlink followed
	OpWrite      = "write"      // tar on stdin; Response.Written, one per member
	OpRemoveTree = "removetree" // JSON list of tree-relative files on stdin; Response.Removal
	OpKillEnv    = "killenv"    // arg: token; SIGKILL every process whose environment holds ExecTokenEnv=<token>; Response.Size = how many, Response.Killed which
	OpOOMKills   = "oomkills"   // Response.Size = processes the out-of-memory killer has killed in the container's memory cgroup
	OpPersist    = "persist"    // arg: JSON list of excluded paths; the workspace tar on stdout (no Response), errors on stderr, exit 1
	OpRead       = "read"       // arg: byte limit; the file's content on stdout (no Response), errors on stderr, exit 1
	OpHydrate    = "hydrate"    // arg: HydrateArg; tar on stdin, extracted below the root; Response.Size = regular files written
	OpMkEntry    = "mkentry"    // arg: EntryMeta JSON; a directory entry: parents 0755, rel, then its metadata (see EntryMeta)
	OpExport     = "export"     // JSON list of files on stdin; their tar on stdout (backend.ExportArchiver; no Response), errors on stderr, exit 1
)

// StatHash is OpStat's argument asking for the content digest too.
const StatHash = "hash"

// EntryMeta is the metadata of an entry applied by the helper in the same
// process that makes it, as the Python SDK applies it after materialising
// an entry: chown (Owner set) or chgrp (only Group set) first, then chmod
// to Perm. An entry created by the operation is removed again when its
// metadata cannot be applied. OpMkEntry takes it as JSON in its argument;
// an OpWrite member carries it in the PAX record PAXMeta.
type EntryMeta struct {
	// Perm is an fs.FileMode (its permission, setuid, setgid and sticky
	// bits), as the mode arguments of OpMkdir and OpChmod.
	Perm  uint32 `json:"perm"`
	Owner string `json:"owner,omitempty"`
	Group string `json:"group,omitempty"`
}

// PAXMeta is the PAX record of an OpWrite member holding its EntryMeta as
// JSON; absent, only the member mode is applied.
const PAXMeta = "SANDBOX.meta"

// ExecTokenEnv is the environment variable the Docker backend gives every
// command it runs, with a value unique to that run. Children inherit it, so
// on timeout OpKillEnv finds and kills the whole tree the command started,
// process groups and new sessions included, with no tool needed in the
// image.
const ExecTokenEnv = proctree.TokenEnv

// Version is the protocol version printed by OpVersion.
const Version = "1"

// Error kinds carried by Response.Error; each maps back to the sentinel the
// backend.Backend contract promises.
const (
	KindEscape         = "escape_root"     // wraps backend.ErrEscapesRoot
	KindNotExist       = "not_exist"       // wraps fs.ErrNotExist
	KindContentChanged = "content_changed" // wraps backend.ErrContentChanged
	KindNotDir         = "not_dir"         // wraps syscall.ENOTDIR (a parent is not a directory)
	KindOther          = "error"
)

// Response is what the helper prints, as one JSON object.
type Response struct {
	Version string                `json:"version,omitempty"`
	Error   *Error                `json:"error,omitempty"`
	Info    *backend.FileInfo     `json:"info,omitempty"`
	SHA256  string                `json:"sha256,omitempty"`
	Size    int64                 `json:"size,omitempty"`
	Files   []backend.TreeFile    `json:"files,omitempty"`
	Written []sandbox.WriteResult `json:"written,omitempty"`
	Removal *backend.RemoveReport `json:"removal,omitempty"`
	// Killed names the processes OpKillEnv killed (a helper of an older
	// version gives only their count in Size).
	Killed []proctree.Proc `json:"killed,omitempty"`
	// Batch holds the answers of an OpBatch, one per operation, in order.
	Batch []Response `json:"batch,omitempty"`
}

// Error is a failed operation: its kind and the message of the error.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// ErrorFrom classifies err for a Response.
func ErrorFrom(err error) *Error {
	kind := KindOther
	switch {
	case errors.Is(err, backend.ErrEscapesRoot):
		kind = KindEscape
	case errors.Is(err, fs.ErrNotExist):
		kind = KindNotExist
	case errors.Is(err, backend.ErrContentChanged):
		kind = KindContentChanged
	case errors.Is(err, syscall.ENOTDIR):
		kind = KindNotDir
	}
	return &Error{Kind: kind, Message: err.Error()}
}

// Err turns a Response error back into an error that keeps the helper's
// message and wraps the sentinel of its kind.
func (e *Error) Err() error {
	var sentinel error
	switch e.Kind {
	case KindEscape:
		sentinel = backend.ErrEscapesRoot
	case KindNotExist:
		sentinel = fs.ErrNotExist
	case KindContentChanged:
		sentinel = backend.ErrContentChanged
	case KindNotDir:
		sentinel = syscall.ENOTDIR
	}
	return &remoteError{msg: e.Message, sentinel: sentinel}
}

type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

// Invoked reports whether a process started with args (os.Args) was
// started as the file helper: the provider binary serves as the helper
// when it is copied into a container under HelperName, and its main then
// runs Main instead of the provider.
func Invoked(args []string) bool {
	return len(args) > 0 && path.Base(args[0]) == HelperName
}

// HydrateArg is OpHydrate's argument: the limits on what the restore
// writes, as "<max_bytes>,<max_files>".
func HydrateArg(l sandbox.OutputLimits) string {
	return strconv.FormatInt(l.MaxBytes, 10) + "," + strconv.FormatInt(l.MaxFiles, 10)
}

// ParseHydrateArg reads HydrateArg; an empty or malformed argument means
// the default limits.
func ParseHydrateArg(arg string) sandbox.OutputLimits {
	var l sandbox.OutputLimits
	b, f, ok := strings.Cut(arg, ",")
	if ok {
		l.MaxBytes, _ = strconv.ParseInt(b, 10, 64)
		l.MaxFiles, _ = strconv.ParseInt(f, 10, 64)
	}
	return l.WithDefaults()
}

var errUsage = errors.New("usage error")

// OpKeepAlive is the keep-alive process of a workspace container with a
// lifetime: `sandbox-fs-helper keepalive <RFC 3339 deadline>` sleeps until
// the deadline and exits 0, so the container stops by itself then; started
// at or after the deadline (docker start, a restart policy, a daemon
// restart) it exits at once. SIGTERM and SIGINT end it too (docker stop).
const OpKeepAlive = "keepalive"

// OpEgress programs or reads a workspace's egress policy in the network
// namespace the helper runs in: `sandbox-fs-helper egress apply` reads an
// egress.Program (JSON) on stdin and replaces the table EgressTable with
// it in one atomic batch; `sandbox-fs-helper egress list` reads the table
// back and `sandbox-fs-helper egress remove` deletes it. Both answer an egress.Observed (JSON) on stdout. The caller runs
// the helper in a short-lived container joined to the workspace's
// network namespace with CAP_NET_ADMIN; the workspace itself has none.
const OpEgress = "egress"
