package mount

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// MountpointRuntime is the runtime config of a mount-s3 (mountpoint) mount:
// the bucket, the credentials (all nil for an unsigned mount), prefix,
// region and endpoint after merging the mount's fields with the pattern's
// options, the mount type and read-only flag. Follows the Python SDK's
// MountpointMountConfig.
type MountpointRuntime struct {
	Bucket                                                                  string
	AccessKeyID, SecretAccessKey, SessionToken, Prefix, Region, EndpointURL *string
	MountType                                                               string
	ReadOnly                                                                bool
}

// EndpointEnvReference is what the mount-s3 command line carries instead of
// an endpoint URL with inline authority (user info or a query): the value
// itself travels in the env file as OPENAI_AGENTS_MOUNT_ENDPOINT_URL.
// Follows the Python SDK's MountpointMountPattern.apply.
const EndpointEnvReference = "${OPENAI_AGENTS_MOUNT_ENDPOINT_URL}"

// MountpointConfig builds a mountpoint runtime config from an S3 or GCS
// mount and the pattern's options (nil means none): the mount's prefix,
// region and endpoint win over the options when set and non-empty; GCS maps
// access_id to the access key, has no session token, and its endpoint falls
// back to https://storage.googleapis.com. Other types → MountConfigError
// "invalid mount_pattern type" {type}. Follows the Python SDK's S3Mount and
// GCSMount build_in_container_mount_config.
func MountpointConfig(m *Mount, o *MountpointOptions) (MountpointRuntime, error) {
	if o == nil {
		o = &MountpointOptions{}
	}
	switch {
	case m.Type == TypeS3 && m.S3 != nil:
		s := m.S3
		return MountpointRuntime{Bucket: s.Bucket, AccessKeyID: s.AccessKeyID, SecretAccessKey: s.SecretAccessKey,
			SessionToken: s.SessionToken, Prefix: pyOr(s.Prefix, o.Prefix), Region: pyOr(s.Region, o.Region),
			EndpointURL: pyOr(s.Endpoint, o.EndpointURL), MountType: m.Type, ReadOnly: m.ReadOnly}, nil
	case m.Type == TypeGCS && m.GCS != nil:
		g := m.GCS
		return MountpointRuntime{Bucket: g.Bucket, AccessKeyID: g.AccessID, SecretAccessKey: g.SecretAccessKey,
			Prefix: pyOr(g.Prefix, o.Prefix), Region: pyOr(g.Region, o.Region),
			EndpointURL: pyOr(pyOr(g.EndpointURL, o.EndpointURL), strp(gcsEndpoint)), MountType: m.Type,
			ReadOnly: m.ReadOnly}, nil
	}
	return MountpointRuntime{}, NewConfigError("invalid mount_pattern type", map[string]any{"type": m.Type})
}

// inlineAuthorityURL reports whether an endpoint URL carries authority
// that must not appear on a command line: not set → false; containing "@",
// unparsable, or with a user name, password or non-empty query → true.
// Follows the Python SDK's _url_contains_inline_authority.
func inlineAuthorityURL(v *string) bool {
	if v == nil {
		return false
	}
	if strings.Contains(*v, "@") {
		return true
	}
	u, err := url.Parse(*v)
	if err != nil {
		return true
	}
	return u.User != nil || u.RawQuery != ""
}

func (rt MountpointRuntime) signed() bool {
	return truthy(rt.AccessKeyID) && truthy(rt.SecretAccessKey)
}

// MountpointArgv returns the mount-s3 argument vector (design/sdk-model.md §5.5):
// mount-s3, --no-sign-request unless both keys are set, --read-only or (for
// S3 and GCS) --allow-overwrite --allow-delete, [--region R],
// [--endpoint-url E], --upload-checksums off for GCS, [--prefix P], bucket,
// mount path. An endpoint with inline authority is replaced by
// EndpointEnvReference. Follows the Python SDK's MountpointMountPattern.apply.
func MountpointArgv(rt MountpointRuntime, mountPath string) []string {
	cmd := []string{"mount-s3"}
	if !rt.signed() {
		cmd = append(cmd, "--no-sign-request")
	}
	if rt.ReadOnly {
		cmd = append(cmd, "--read-only")
	} else if rt.MountType == TypeS3 || rt.MountType == TypeGCS {
		cmd = append(cmd, "--allow-overwrite", "--allow-delete")
	}
	if truthy(rt.Region) {
		cmd = append(cmd, "--region", *rt.Region)
	}
	if truthy(rt.EndpointURL) {
		e := *rt.EndpointURL
		if inlineAuthorityURL(rt.EndpointURL) {
			e = EndpointEnvReference
		}
		cmd = append(cmd, "--endpoint-url", e)
	}
	if rt.MountType == TypeGCS {
		cmd = append(cmd, "--upload-checksums", "off")
	}
	if truthy(rt.Prefix) {
		cmd = append(cmd, "--prefix", *rt.Prefix)
	}
	return append(cmd, rt.Bucket, mountPath)
}

// MountpointEnv returns the variables of the mount's env file, in order:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and [AWS_SESSION_TOKEN] when both
// keys are set, then OPENAI_AGENTS_MOUNT_ENDPOINT_URL for an endpoint with
// inline authority. Empty means no env file. Follows the Python SDK's
// MountpointMountPattern.apply.
func MountpointEnv(rt MountpointRuntime) [][2]string {
	var env [][2]string
	if rt.signed() {
		env = append(env, [2]string{"AWS_ACCESS_KEY_ID", *rt.AccessKeyID},
			[2]string{"AWS_SECRET_ACCESS_KEY", *rt.SecretAccessKey})
		if truthy(rt.SessionToken) {
			env = append(env, [2]string{"AWS_SESSION_TOKEN", *rt.SessionToken})
		}
	}
	if truthy(rt.EndpointURL) && inlineAuthorityURL(rt.EndpointURL) {
		env = append(env, [2]string{"OPENAI_AGENTS_MOUNT_ENDPOINT_URL", *rt.EndpointURL})
	}
	return env
}

// RenderShellExports renders an env file: one "export NAME=<value>" line
// per variable, the value quoted as Python's shlex.quote does, each line
// ending in "\n". Follows the Python SDK's _render_shell_exports.
func RenderShellExports(env [][2]string) string {
	lines := make([]string, len(env))
	for i, kv := range env {
		lines[i] = "export " + kv[0] + "=" + sandbox.ShellQuote(kv[1])
	}
	return strings.Join(lines, "\n") + "\n"
}

// MountpointCommandHash is the name stem of a mount's env and output files:
// the first 16 hex digits of SHA-256 of "<bucket>\x00<mount path>", as the
// Python SDK's MountpointMountPattern.apply names them.
func MountpointCommandHash(bucket, mountPath string) string {
	sum := sha256.Sum256([]byte(bucket + "\x00" + mountPath))
	return hex.EncodeToString(sum[:])[:16]
}

// mountpointEnvDir is the root-relative directory of a session's mount-s3
// env files.
func mountpointEnvDir(sid string) string {
	return posix.CoercePosix(".sandbox-mountpoint-env/" + sid)
}

// mountpointFiles are the root-relative env, stdout and stderr files of a
// mount whose command runs with an env file.
func mountpointFiles(sid, bucket, mount string) [3]string {
	h := mountpointEnvDir(sid) + "/" + MountpointCommandHash(bucket, mount)
	return [3]string{h + ".env", h + ".stdout", h + ".stderr"}
}

// ApplyMountpoint mounts a bucket with mount-s3 at mountPath (absolute, or
// relative to the root), with the Python SDK's command sequence: probe
// "command -v mount-s3 >/dev/null 2>&1" (NewToolMissingError "mount-s3"
// {bucket}); mkdir -p <mount>; when MountpointEnv is not empty, mkdir -p
// <root>/.sandbox-mountpoint-env/<sid> (a persist-skip path), write
// <h>.env (RenderShellExports) and chmod 0600 it; then sh -lc with the
// shell-joined MountpointArgv (EndpointEnvReference double-quoted), which
// with an env file becomes ". <env> && exec <cmd> ><h>.stdout 2><h>.stderr".
//
// A failed mount command is the Python SDK's MountCommandError, which the Python SDK
// always marks as carrying protected data: it is returned with Code
// sandbox.CodeMountFailed, message "sandbox operation failed while using a
// protected mount configuration" and an empty context.
// An empty sessionID with an env file to write → "mount session is missing
// session_id". Follows the Python SDK's MountpointMountPattern.apply.
func ApplyMountpoint(ctx context.Context, s Session, rt MountpointRuntime, mountPath, sessionID string) (Applied, error) {
	var out Applied
	r := newRunner(ctx, s, &out)
	if err := r.probe("command -v mount-s3 >/dev/null 2>&1", "mount-s3", map[string]any{"bucket": rt.Bucket}); err != nil {
		return out, err
	}
	mount := r.abs(mountPath)
	if err := r.mkdir(mount); err != nil {
		return out, err
	}
	argv := MountpointArgv(rt, mount)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = sandbox.ShellQuote(a)
		if a == EndpointEnvReference {
			quoted[i] = `"` + a + `"`
		}
	}
	cmd := strings.Join(quoted, " ")
	if env := MountpointEnv(rt); len(env) > 0 {
		sid, err := requireSession(sessionID, rt.MountType)
		if err != nil {
			return out, err
		}
		dir := mountpointEnvDir(sid)
		if err := r.mkdir(r.abs(dir)); err != nil {
			return out, err
		}
		r.skip(dir)
		files := mountpointFiles(sid, rt.Bucket, mount)
		if err := r.writeSensitive(files[0], RenderShellExports(env)); err != nil {
			return out, err
		}
		r.generated(r.abs(files[1]), r.abs(files[2]))
		cmd = ". " + sandbox.ShellQuote(r.abs(files[0])) + " && exec " + cmd + " >" +
			sandbox.ShellQuote(r.abs(files[1])) + " 2>" + sandbox.ShellQuote(r.abs(files[2]))
	}
	res, err := r.shell(cmd)
	if err != nil {
		return out, err
	}
	if res.ExitCode != 0 {
		return out, protectMountError(NewCommandError(cmd, "", map[string]any{"bucket": rt.Bucket}))
	}
	return out, nil
}
