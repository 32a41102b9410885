package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// boxMountType is sandbox_box_mount: the Python SDK's BoxMount (design/sdk-model.md §5.4).
var boxMountType = registerMountType(mountType{
	typ: mount.TypeBox,
	summary: "A Box folder mounted into a workspace: the Python SDK's `BoxMount`, through rclone's `box` backend. An " +
		"in-container Box mount needs a non-interactive authentication source: `token_wo`, `access_token_wo`, " +
		"`config_credentials_wo` or `box_config_file`.",
	fields: []mountField{
		{name: "path", tfName: "box_path", desc: "Folder path in Box (leading `/` stripped). Named `box_path` because `path` " +
			"is the manifest key here; the Python SDK's field is `path`."},
		{name: "client_id", desc: "OAuth client id."},
		{name: "client_secret", secret: true, desc: "OAuth client secret."},
		{name: "access_token", secret: true, desc: "Box access token."},
		{name: "token", secret: true, desc: "rclone OAuth token JSON, such as `{\"access_token\":\"...\"}`."},
		{name: "box_config_file", desc: "Path of a Box JWT config file that already exists in the sandbox image (absolute, " +
			"outside the workspace root)."},
		{name: "config_credentials", secret: true, desc: "Box JWT config JSON."},
		{name: "box_sub_type", def: "user", oneOf: []string{"user", "enterprise"}, desc: "`user` or `enterprise`."},
		{name: "root_folder_id", desc: "Id of the folder used as the root."},
		{name: "impersonate", desc: "User id to impersonate."},
		{name: "owned_by", desc: "Only show items owned by this login (email)."},
	},
	build: func(m *mount.Mount, v mountValues, _ []mount.Option) {
		m.Box = &mount.Box{Path: v["path"], ClientID: v["client_id"], ClientSecret: v["client_secret"],
			AccessToken: v["access_token"], Token: v["token"], BoxConfigFile: v["box_config_file"],
			ConfigCredentials: v["config_credentials"], BoxSubType: v.strDefault("box_sub_type", "user"),
			RootFolderID: v["root_folder_id"], Impersonate: v["impersonate"], OwnedBy: v["owned_by"]}
	},
})

// NewBoxMountResource returns the sandbox_box_mount resource.
func NewBoxMountResource() resource.Resource { return &mountResource{kind: boxMountType} }
