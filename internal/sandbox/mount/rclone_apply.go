package mount

import (
	"context"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// DefaultNFSAddr is where "rclone serve nfs" listens when the pattern has no
// nfs_addr, the Python SDK's default.
const DefaultNFSAddr = "127.0.0.1:2049"

// rcloneConfigDir is the root-relative directory of an rclone mount's
// generated config for one session.
func rcloneConfigDir(sid string) string { return ".sandbox-rclone-config/" + sid }

// rcloneConfigRel is the root-relative path of a remote's generated config.
func rcloneConfigRel(sid, remote string) string {
	return posix.CoercePosix(rcloneConfigDir(sid) + "/" + remote + ".conf")
}

func rcloneMode(p *RclonePattern) string {
	if p == nil || p.Mode == "" {
		return "fuse"
	}
	return p.Mode
}

// ApplyRclone mounts an rclone remote at mountPath (absolute, or relative to
// the root) in the session, with the exact command sequence of the Python SDK's
// RcloneMountPattern.apply (design/sdk-model.md §5.5):
//
//  1. sh -lc "command -v rclone >/dev/null 2>&1 || test -x /usr/local/bin/rclone"
//     (non-zero → NewToolMissingError "rclone" {type});
//  2. mkdir -p <mount>; mkdir -p <root>/.sandbox-rclone-config/<sid>
//     (a persist-skip path); write <remote>.conf there with rt.ConfigText,
//     then chmod 0600 it;
//  3. fuse mode: rclone mount <remote>:<path> <mount> [--read-only] --config
//     <conf> --daemon [extra_args…] (argument vector, no shell);
//     nfs mode: probe "rclone serve nfs --help" (NewToolMissingError "rclone
//     serve nfs"), start the server in the background through sh -lc, check
//     /proc/filesystems for nfs (only a warning), probe for timeout, then
//     retry "mount -v -t nfs" three times through sh -lc.
//
// A failed mount command → NewCommandError (command, stderr, type); a failed
// mkdir or chmod → sandbox.NewExecNonZeroError; transport errors from the
// session are returned as they are. An empty sessionID → MountConfigError
// "mount session is missing session_id". The returned Applied lists what
// was created even on error.
func ApplyRclone(ctx context.Context, s Session, p *RclonePattern, rt RcloneRuntime, mountPath, sessionID string) (Applied, error) {
	out := Applied{RemoteName: rt.RemoteName}
	r := newRunner(ctx, s, &out)
	typeCtx := map[string]any{"type": rt.MountType}
	if err := r.probe("command -v rclone >/dev/null 2>&1 || test -x /usr/local/bin/rclone", "rclone", typeCtx); err != nil {
		return out, err
	}
	sid, err := requireSession(sessionID, rt.MountType)
	if err != nil {
		return out, err
	}
	mount := r.abs(mountPath)
	if err := r.mkdir(mount); err != nil {
		return out, err
	}
	dir := posix.CoercePosix(rcloneConfigDir(sid))
	if err := r.mkdir(r.abs(dir)); err != nil {
		return out, err
	}
	r.skip(dir)
	confRel := rcloneConfigRel(sid, rt.RemoteName)
	if err := r.writeSensitive(confRel, rt.ConfigText); err != nil {
		return out, err
	}
	conf := r.abs(confRel)
	var extra []string
	if p != nil {
		extra = p.ExtraArgs
	}
	remote := rt.RemoteName + ":" + rt.RemotePath
	if rcloneMode(p) != "nfs" {
		cmd := []string{"rclone", "mount", remote, mount}
		if rt.ReadOnly {
			cmd = append(cmd, "--read-only")
		}
		cmd = append(append(cmd, "--config", conf, "--daemon"), extra...)
		res, err := r.exec(cmd...)
		if err != nil {
			return out, err
		}
		if res.ExitCode != 0 {
			return out, commandFailed(spaceJoin(cmd), res, typeCtx)
		}
		return out, nil
	}
	addr := DefaultNFSAddr
	if p != nil && truthy(p.NFSAddr) {
		addr = *p.NFSAddr
	}
	if err := r.probe("/usr/local/bin/rclone serve nfs --help >/dev/null 2>&1 || rclone serve nfs --help >/dev/null 2>&1",
		"rclone serve nfs", typeCtx); err != nil {
		return out, err
	}
	server := []string{"rclone", "serve", "nfs", remote, "--addr", addr, "--config", conf}
	if rt.ReadOnly {
		server = append(server, "--read-only")
	}
	server = append(server, extra...)
	res, err := r.shell(sandbox.ShellJoin(server) + " &")
	if err != nil {
		return out, err
	}
	if res.ExitCode != 0 {
		return out, commandFailed(spaceJoin(server), res, typeCtx)
	}
	return out, r.nfsClient(p, addr, mount, typeCtx)
}

// nfsClient is the Python SDK's _start_rclone_client in nfs mode.
func (r *runner) nfsClient(p *RclonePattern, addr, mount string, typeCtx map[string]any) error {
	res, err := r.shell("grep -w nfs /proc/filesystems")
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		r.out.Warnings = append(r.out.Warnings, "NFS client support not detected; attempting mount anyway. "+
			"If it fails, use rclone fuse mode or run on a kernel with NFS support.")
	}
	host, port := addr, "2049"
	if i := strings.LastIndex(addr, ":"); i >= 0 {
		host, port = addr[:i], addr[i+1:]
	}
	if host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	opts := []string{"vers=4.1", "tcp", "port=" + port, "soft", "timeo=50", "retrans=1"}
	if p != nil && len(p.NFSMountOptions) > 0 {
		opts = p.NFSMountOptions
	}
	res, err = r.shell("command -v timeout >/dev/null 2>&1")
	if err != nil {
		return err
	}
	prefix := ""
	if res.ExitCode == 0 {
		prefix = "timeout 10s "
	}
	loop := strings.Join([]string{"for i in 1 2 3; do", prefix + "mount", "-v", "-t", "nfs", "-o",
		sandbox.ShellQuote(strings.Join(opts, ",")), sandbox.ShellQuote(host) + ":/", sandbox.ShellQuote(mount),
		"&& exit 0; sleep 1; done; exit 1"}, " ")
	res, err = r.shell(loop)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return commandFailed("sh -lc "+loop, res, typeCtx)
	}
	return nil
}

// UnapplyRclone unmounts an rclone mount with the Python SDK's commands, all
// through sh -lc with the mount path shell-quoted: fuse mode
// "fusermount3 -u <mount> || umount <mount>", nfs mode
// "umount <mount> >/dev/null 2>&1 || true", then
// "pkill -f -- 'rclone (mount|serve nfs) <remote>:' >/dev/null 2>&1 || true".
// Exit codes are ignored (the mount may already be gone); only session
// transport errors are returned. The pkill pattern is shell-quoted as a
// whole, which gives the Python SDK's text for every valid remote name. Follows
// the Python SDK's RcloneMountPattern.unapply.
func UnapplyRclone(ctx context.Context, s Session, p *RclonePattern, remoteName, mountPath string) error {
	r := newRunner(ctx, s, &Applied{})
	q := sandbox.ShellQuote(r.abs(mountPath))
	cmd := "fusermount3 -u " + q + " || umount " + q
	if rcloneMode(p) == "nfs" {
		cmd = "umount " + q + " >/dev/null 2>&1 || true"
	}
	if _, err := r.shell(cmd); err != nil {
		return err
	}
	_, err := r.shell("pkill -f -- " + sandbox.ShellQuote("rclone (mount|serve nfs) "+remoteName+":") +
		" >/dev/null 2>&1 || true")
	return err
}

// UnapplyFuseMount unmounts a FUSE mount (mountpoint's mount-s3 or
// blobfuse2) with the Python SDK's best-effort
// sh -lc "fusermount3 -u <mount> || umount <mount>", ignoring its exit code.
// Follows the Python SDK's MountpointMountPattern.unapply and
// FuseMountPattern.unapply.
func UnapplyFuseMount(ctx context.Context, s Session, mountPath string) error {
	r := newRunner(ctx, s, &Applied{})
	q := sandbox.ShellQuote(r.abs(mountPath))
	_, err := r.shell("fusermount3 -u " + q + " || umount " + q)
	return err
}
