package mount_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

func TestVolumeDriverOptions(t *testing.T) {
	tests := []struct {
		name     string
		m        *mount.Mount
		want     map[string]string
		readOnly bool
	}{
		{
			name: "azure with key, msi id and endpoint",
			m: &mount.Mount{Type: mount.TypeAzureBlob, ReadOnly: true, AzureBlob: &mount.AzureBlob{Account: "acct",
				Container: "data", Endpoint: sp("https://blob.example.test"), IdentityClientID: sp("cid"), AccountKey: sp("k")},
				Strategy: docker("rclone")},
			want: map[string]string{"type": "azureblob", "path": "data", "azureblob-account": "acct",
				"azureblob-endpoint": "https://blob.example.test", "azureblob-msi-client-id": "cid", "azureblob-key": "k"},
			readOnly: true,
		},
		{
			name:     "azure minimal",
			m:        &mount.Mount{Type: mount.TypeAzureBlob, AzureBlob: &mount.AzureBlob{Account: "acct", Container: "data"}, Strategy: docker("rclone")},
			want:     map[string]string{"type": "azureblob", "path": "data", "azureblob-account": "acct"},
			readOnly: false,
		},
		{
			name: "box enterprise with every field",
			m: &mount.Mount{Type: mount.TypeBox, Box: &mount.Box{Path: sp("/Shared/Docs"), ClientID: sp("ci"),
				ClientSecret: sp("cs"), AccessToken: sp("at"), Token: sp("tk"), BoxConfigFile: sp("/c.json"),
				ConfigCredentials: sp("cc"), BoxSubType: "enterprise", RootFolderID: sp("0"), Impersonate: sp("u"),
				OwnedBy: sp("o")}, Strategy: docker("rclone")},
			want: map[string]string{"type": "box", "path": "Shared/Docs", "box-client-id": "ci", "box-client-secret": "cs",
				"box-access-token": "at", "box-token": "tk", "box-box-config-file": "/c.json", "box-config-credentials": "cc",
				"box-box-sub-type": "enterprise", "box-root-folder-id": "0", "box-impersonate": "u", "box-owned-by": "o"},
		},
		{
			name: "box user sub type omitted, user options last",
			m: &mount.Mount{Type: mount.TypeBox, Box: &mount.Box{BoxSubType: "user", Token: sp("tk")},
				Strategy: mount.Strategy{Type: mount.StrategyDockerVolume, Driver: "rclone",
					DriverOptions: map[string]string{"path": "Override", "vfs-cache-mode": "full"}}},
			want: map[string]string{"type": "box", "path": "Override", "box-token": "tk", "vfs-cache-mode": "full"},
		},
		{
			name: "s3 rclone with session token and empty prefix",
			m: &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b", Prefix: sp("/"), SessionToken: sp("t"),
				Region: sp("r")}, Strategy: docker("rclone")},
			want: map[string]string{"type": "s3", "s3-provider": "AWS", "path": "b/", "s3-session-token": "t", "s3-region": "r"},
		},
		{
			name: "gcs mountpoint with endpoint",
			m: &mount.Mount{Type: mount.TypeGCS, GCS: &mount.GCS{Bucket: "g", EndpointURL: sp("https://e"), Prefix: sp("p")},
				Strategy: docker("mountpoint")},
			want: map[string]string{"bucket": "g", "endpoint_url": "https://e", "prefix": "p"},
		},
		{
			name: "r2 custom domain",
			m: &mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b", AccountID: "a", CustomDomain: sp("https://cd")},
				Strategy: docker("rclone")},
			want: map[string]string{"type": "s3", "path": "b", "s3-provider": "Cloudflare", "s3-endpoint": "https://cd"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			driver, opts, ro, err := mount.VolumeDriverOptions(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if driver != tt.m.Strategy.Driver || ro != tt.readOnly || !reflect.DeepEqual(opts, tt.want) {
				t.Errorf("got %s %v %v, want %v %v", driver, opts, ro, tt.want, tt.readOnly)
			}
		})
	}
}

func TestVolumeDriverOptionsErrors(t *testing.T) {
	_, _, _, err := mount.VolumeDriverOptions(&mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"}, Strategy: inContainer("rclone")})
	wantConfigError(t, err, "mount strategy is not docker_volume", map[string]any{"type": mount.TypeS3})
	_, _, _, err = mount.VolumeDriverOptions(&mount.Mount{Type: mount.TypeBox, Box: &mount.Box{}, Strategy: docker("mountpoint")})
	wantConfigError(t, err, "invalid Docker volume driver", map[string]any{"type": mount.TypeBox, "driver": "mountpoint"})
}

func TestVolumeName(t *testing.T) {
	for _, tt := range []struct{ sid, path, want string }{
		{"", "/workspace/data", "sandbox_ac6cdb3eb035_workspace_data"},
		{"", "/workspace/data/", "sandbox_ac6cdb3eb035_workspace_data"},
		{testHex, "/workspace/data", "sandbox_" + testHex + "_ac6cdb3eb035_workspace_data"},
		{testSession, "/workspace/data", "sandbox_" + testHex + "_ac6cdb3eb035_workspace_data"},
	} {
		if got := mount.VolumeName(tt.sid, tt.path); got != tt.want {
			t.Errorf("VolumeName(%q, %q) = %q, want %q", tt.sid, tt.path, got, tt.want)
		}
	}
	if got := mount.VolumeName("", "/"); !strings.HasSuffix(got, "_workspace") {
		t.Errorf("root volume name %q", got)
	}
	if got := mount.VolumeName("", "/w/é b"); !strings.HasSuffix(got, "_w___b") {
		t.Errorf("non-ASCII volume name %q", got)
	}
}
