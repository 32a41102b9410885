package provider

// Attribute descriptions shared by several resources. A description is
// read where the attribute is typed, so it says shape, unit, default and the
// error a user gets; the rules behind it are written once, in a guide (or a
// section of the resource's page) that the description links to.
// TestSchemaDescriptionsShort keeps every description within 400 characters.

// Guides, relative to a resource's or data source's page.
const (
	// entriesGuide explains paths, permissions and manifest_entry.
	entriesGuide = "../guides/entries.md"
	// mountsGuide explains mount paths, strategies and credentials.
	mountsGuide = "../guides/mounts.md"
)

// entryPathDescription is the path of an entry resource; noun names it.
func entryPathDescription(noun string) string {
	return "Workspace-relative POSIX path of the " + noun + " (the manifest key), checked at plan time with the " +
		"[Python SDK's rules](" + entriesGuide + "#paths): absolute and Windows drive paths fail with reason `absolute`, any " +
		"`..` segment with `escape_root`. Moving it replaces the " + noun + "."
}

// entryPermissionsDescription is the permissions of an entry resource.
func entryPermissionsDescription(noun string) string {
	return "Mode of the " + noun + ": octal (`\"0750\"`) or `ls -l` form (`\"drwxr-x---\"`), compared by " +
		"[permission bits](" + entriesGuide + "#permissions). Default `\"" + DefaultPermissions + "\"`. Set by chmod " +
		"after writing, never by the umask; a mode changed out of band is restored by the next apply."
}

// manifestEntryDescription is the computed manifest_entry; shape is the
// JSON the resource renders.
func manifestEntryDescription(shape string) string {
	return "The entry as the [Python SDK's JSON](" + entriesGuide + "#manifest_entry), " + shape + ", known at plan " +
		"time whenever the inputs are. Pass it to `data.sandbox_manifest` `entries`."
}

// sensitiveManifestEntryNote is added to the manifest_entry of an entry
// that carries content.
const sensitiveManifestEntryNote = " Sensitive, as it repeats the content; `data.sandbox_manifest` `review` shows it " +
	"readable."

// mountManifestEntryShape is the manifest_entry shape of mount type typ.
func mountManifestEntryShape(typ string) string {
	return "`{\"type\": \"" + typ + "\", ..., \"mount_strategy\": {...}}` with every credential set to null, so it is " +
		"safe to print"
}

// mountPathDescription is mount_path on every storage mount.
const mountPathDescription = "Where the mount lands instead of `<root>/<path>`: relative to the root, or an absolute " +
	"POSIX path (outside the root on a Docker workspace only). `..` above the root fails with `escape_root`, a Windows " +
	"path with `absolute`; [more rules](" + mountsGuide + "#mount_path). Changing it replaces the mount."

// inContainerDescription is the in_container strategy block.
const inContainerDescription = "The Python SDK's `in_container` strategy: the mount helper runs inside the workspace " +
	"during apply and is unmounted on destroy. Exactly one pattern block; a Docker workspace needs `docker { fuse = true }`. " +
	"Changing anything here replaces the mount. [Strategies](" + mountsGuide + "#in_container)."

// dockerVolumeDescription is the docker_volume strategy block.
const dockerVolumeDescription = "The Python SDK's `docker_volume` strategy: a named Docker volume created with `driver`, " +
	"which the workspace's `docker.volumes` attaches (leave `workspace_id` unset). The daemon stores the credentials " +
	"with the volume. Destroy removes it; any change replaces it. [Strategies](" + mountsGuide + "#docker_volume)."

// authorityFieldNote follows the description of a mount's write-only
// credential attribute; name is the Python SDK's field name.
func authorityFieldNote(name string) string {
	return " The Python SDK's `" + name + "`: write-only, never in state, plans or error messages; bump " +
		"`credentials_wo_version` to apply a new value. Blank values and line breaks are refused at plan time."
}

// envWODescription is environment_wo of commands and workspaces.
const envWODescription = "Secret environment variables, name to value; write-only (Terraform 1.11 or later): never in " +
	"state, plans or logs, and `REDACTED` in `stdout`, `stderr` and errors. A name may not also be in `environment`; a " +
	"new value applies when `environment_wo_version` changes."
