package conformance

import (
	"encoding/json"
	"os"
	"testing"
)

// TestHandlerInputShapes runs input shapes of the vector areas that the
// seed vector file does not hold yet through the same handlers and
// comparison, with expected values worked out by hand from the Python
// SDK's rules (design/sdk-model.md §3.6, §5.2, §6.1, §6.2). Each must be
// decoded and run, never reported unsupported.
func TestHandlerInputShapes(t *testing.T) {
	tmp, _ := json.Marshal(os.TempDir())
	mounts := `{"root": "/workspace", "entries": {
		"notes.txt": {"type": "file", "content": "x", "ephemeral": true},
		"keep.txt": {"type": "file", "content": "y"},
		"data": {"type": "s3_mount", "bucket": "b", "mount_path": "mnt/data",
			"mount_strategy": {"type": "in_container", "pattern": {"type": "rclone", "mode": "nfs"}}},
		"outside": {"type": "gcs_mount", "bucket": "c", "mount_path": "/mnt/out",
			"mount_strategy": {"type": "docker_volume", "driver": "rclone"}},
		"kept": {"type": "azure_blob_mount", "account": "a", "container": "k", "ephemeral": false,
			"mount_strategy": {"type": "in_container", "pattern": {"type": "fuse"}}}}}`
	vectors := []seedVector{
		{Area: "manifest_paths", Case: "ephemeral persistence paths include mount targets under the root",
			Input:    json.RawMessage(`{"fn": "ephemeral_persistence_paths", "manifest": ` + mounts + `}`),
			Expected: json.RawMessage(`["data", "mnt/data", "notes.txt", "outside"]`)},
		{Area: "manifest_paths", Case: "mount targets deepest first",
			Input:    json.RawMessage(`{"fn": "mount_targets", "manifest": ` + mounts + `}`),
			Expected: json.RawMessage(`["/workspace/mnt/data", "/mnt/out", "/workspace/kept"]`)},
		{Area: "manifest_paths", Case: "ephemeral mount targets",
			Input:    json.RawMessage(`{"fn": "ephemeral_mount_targets", "manifest": ` + mounts + `}`),
			Expected: json.RawMessage(`["/workspace/mnt/data", "/mnt/out"]`)},
		{Area: "backend_docker", Case: "host_path grants become bind mounts, path-only grants do not",
			Input: json.RawMessage(`{"image": "img", "manifest": {"extra_path_grants": [
				{"path": "/mnt/shared", "host_path": "<dir>", "read_only": true}, {"path": "/opt/tools"}]}}`),
			Expected: json.RawMessage(`{"mounts": [{"Target": "/mnt/shared", "Source": ` + string(tmp) +
				`, "Type": "bind", "ReadOnly": true}], "environment": {}}`)},
		{Area: "backend_docker", Case: "host_path target inside the root",
			Input: json.RawMessage(`{"manifest": {"extra_path_grants": [{"path": "/workspace/data", "host_path": "<dir>"}]}}`),
			Expected: json.RawMessage(`{"error": "ValueError",
				"message": "Docker sandbox path grant host_path target must be outside the workspace root: /workspace/data"}`)},
		{Area: "backend_docker", Case: "host_path target containing the root",
			Input:    json.RawMessage(`{"manifest": {"root": "/srv/app/ws", "extra_path_grants": [{"path": "/srv", "host_path": "<dir>"}]}}`),
			Expected: json.RawMessage(`{"error": "ValueError", "message": "Docker sandbox path grant host_path target must be outside the workspace root: /srv"}`)},
		{Area: "mount_rclone_config", Case: "config file without the remote's section",
			Input: json.RawMessage(`{"mount": {"type": "s3_mount", "bucket": "b"},
				"pattern": {"type": "rclone", "config_file_path": "rclone.conf"}, "config_file_text": "[other]\ntype = memory\n"}`),
			Expected: json.RawMessage(`{"error": "MountConfigError", "error_code": "mount_config_invalid",
				"message": "rclone config missing required remote section",
				"context": {"type": "s3_mount", "path": "rclone.conf", "remote_name": "sandbox_s3_12345678123456781234567812345678"}}`)},
		{Area: "mount_rclone_config", Case: "blank config file",
			Input: json.RawMessage(`{"mount": {"type": "s3_mount", "bucket": "b"},
				"pattern": {"type": "rclone", "config_file_path": "rclone.conf"}, "config_file_text": " \n\t\n"}`),
			Expected: json.RawMessage(`{"error": "MountConfigError", "error_code": "mount_config_invalid",
				"message": "rclone config file is empty", "context": {"type": "s3_mount", "path": "rclone.conf"}}`)},
		{Area: "mount_commands", Case: "rclone nfs apply read-only on a wildcard address",
			Input: json.RawMessage(`{"pattern": {"type": "rclone", "mode": "nfs", "nfs_addr": "0.0.0.0:12049"},
				"mount_path": "/workspace/mnt", "config": {"remote_name": "remote", "remote_path": "bucket",
				"remote_kind": "s3", "mount_type": "s3_mount", "config_text": "[remote]\n", "read_only": true}}`),
			Expected: json.RawMessage(`{"exec_calls": [
				["sh", "-lc", "command -v rclone >/dev/null 2>&1 || test -x /usr/local/bin/rclone"],
				["mkdir", "-p", "/workspace/mnt"],
				["mkdir", "-p", "/workspace/.sandbox-rclone-config/12345678123456781234567812345678"],
				["chmod", "0600", "/workspace/.sandbox-rclone-config/12345678123456781234567812345678/remote.conf"],
				["sh", "-lc", "/usr/local/bin/rclone serve nfs --help >/dev/null 2>&1 || rclone serve nfs --help >/dev/null 2>&1"],
				["sh", "-lc", "rclone serve nfs remote:bucket --addr 0.0.0.0:12049 --config /workspace/.sandbox-rclone-config/12345678123456781234567812345678/remote.conf --read-only &"],
				["sh", "-lc", "grep -w nfs /proc/filesystems"],
				["sh", "-lc", "command -v timeout >/dev/null 2>&1"],
				["sh", "-lc", "for i in 1 2 3; do timeout 10s mount -v -t nfs -o vers=4.1,tcp,port=12049,soft,timeo=50,retrans=1 127.0.0.1:/ /workspace/mnt && exit 0; sleep 1; done; exit 1"]],
				"write_calls": [[".sandbox-rclone-config/12345678123456781234567812345678/remote.conf", "[remote]\n"]],
				"persist_skip_paths": [".sandbox-rclone-config/12345678123456781234567812345678"]}`)},
		{Area: "snapshot", Case: "local snapshot under another base path",
			Input:    json.RawMessage(`{"fn": "LocalSnapshot(id, base_path='/var/snaps')._path()", "id": "s1"}`),
			Expected: json.RawMessage(`"/var/snaps/s1.tar"`)},
		{Area: "snapshot", Case: "local snapshot with the base path in the input",
			Input:    json.RawMessage(`{"fn": "LocalSnapshot(id, base_path)._path()", "base_path": "/data/s", "id": "a/b"}`),
			Expected: json.RawMessage(`{"error": "ValueError", "message": "LocalSnapshot id must be a single path segment"}`)},
	}
	for _, v := range vectors {
		t.Run(v.Area+"/"+v.Case, func(t *testing.T) {
			runVector(t, v, func(reason string) { t.Errorf("reported unsupported: %s", reason) })
		})
	}
}
