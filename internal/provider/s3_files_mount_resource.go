package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// s3FilesMountType is sandbox_s3_files_mount: the Python SDK's S3FilesMount
// (design/sdk-model.md §5.4).
var s3FilesMountType = registerMountType(mountType{
	typ: mount.TypeS3Files,
	summary: "An Amazon S3 Files file system mounted into a workspace with `mount -t s3files`: the Python SDK's `S3FilesMount`. " +
		"It authenticates with the sandbox's ambient IAM identity (the Python SDK's broad credential authority), so it has no " +
		"key attributes; only the `s3files` pattern applies and there is no Docker volume driver.",
	extraOptions: true,
	fields: []mountField{
		{name: "file_system_id", required: true, desc: "File system id, such as `fs-1234567890abcdef0`."},
		{name: "subpath", desc: "Path inside the file system; the device is `<file_system_id>:<subpath>`."},
		{name: "mount_target_ip", desc: "`mounttargetip=` option; wins over the pattern's."},
		{name: "access_point", desc: "`accesspoint=` option; wins over the pattern's."},
		{name: "region", desc: "`region=` option; wins over the pattern's."},
	},
	build: func(m *mount.Mount, v mountValues, extra []mount.Option) {
		m.S3Files = &mount.S3Files{FileSystemID: v.str("file_system_id"), Subpath: v["subpath"],
			MountTargetIP: v["mount_target_ip"], AccessPoint: v["access_point"], Region: v["region"], ExtraOptions: extra}
	},
})

// NewS3FilesMountResource returns the sandbox_s3_files_mount resource.
func NewS3FilesMountResource() resource.Resource { return &mountResource{kind: s3FilesMountType} }
