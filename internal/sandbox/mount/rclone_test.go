package mount_test

import (
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

const (
	testSession = "12345678-1234-5678-1234-567812345678"
	testHex     = "12345678123456781234567812345678"
)

func TestRcloneConfigText(t *testing.T) {
	tests := []struct {
		name     string
		m        *mount.Mount
		wantName string
		wantPath string
		wantText string
	}{
		{
			name: "s3 with session token and region",
			m: &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b", AccessKeyID: sp("ak"), SecretAccessKey: sp("sk"),
				SessionToken: sp("tok"), Region: sp("eu-west-1"), Prefix: sp("p")}},
			wantName: "sandbox_s3_" + testHex, wantPath: "b/p",
			wantText: "[sandbox_s3_" + testHex + "]\ntype = s3\nprovider = AWS\nregion = eu-west-1\nenv_auth = false\n" +
				"access_key_id = ak\nsecret_access_key = sk\nsession_token = tok\n",
		},
		{
			name: "s3 empty keys are no credentials",
			m: &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b", AccessKeyID: sp(""), SecretAccessKey: sp("sk"),
				S3Provider: "Minio", Endpoint: sp("")}},
			wantName: "sandbox_s3_" + testHex, wantPath: "b",
			wantText: "[sandbox_s3_" + testHex + "]\ntype = s3\nprovider = Minio\nendpoint = \nenv_auth = false\n",
		},
		{
			name: "box default sub type user is omitted",
			m: &mount.Mount{Type: mount.TypeBox, Box: &mount.Box{Path: sp("//Team"), Token: sp("t"), BoxSubType: "user",
				OwnedBy: sp("o")}},
			wantName: "sandbox_box_" + testHex, wantPath: "Team",
			wantText: "[sandbox_box_" + testHex + "]\ntype = box\ntoken = t\nowned_by = o\n",
		},
		{
			name:     "box without path",
			m:        &mount.Mount{Type: mount.TypeBox, Box: &mount.Box{AccessToken: sp("a")}},
			wantName: "sandbox_box_" + testHex, wantPath: "",
			wantText: "[sandbox_box_" + testHex + "]\ntype = box\naccess_token = a\n",
		},
		{
			name: "gcs native with service account",
			m: &mount.Mount{Type: mount.TypeGCS, GCS: &mount.GCS{Bucket: "g", ServiceAccountFile: sp("/creds/sa.json"),
				ServiceAccountCredentials: sp(`{"type":"service_account"}`)}},
			wantName: "sandbox_gcs_" + testHex, wantPath: "g",
			wantText: "[sandbox_gcs_" + testHex + "]\ntype = google cloud storage\nservice_account_file = /creds/sa.json\n" +
				"service_account_credentials = {\"type\":\"service_account\"}\nenv_auth = false\n",
		},
		{
			name: "gcs hmac with endpoint",
			m: &mount.Mount{Type: mount.TypeGCS, GCS: &mount.GCS{Bucket: "g", AccessID: sp("id"), SecretAccessKey: sp("s"),
				EndpointURL: sp("https://gcs.example.test")}},
			wantName: "sandbox_gcs_s3_" + testHex, wantPath: "g",
			wantText: "[sandbox_gcs_s3_" + testHex + "]\ntype = s3\nprovider = GCS\nenv_auth = false\naccess_key_id = id\n" +
				"secret_access_key = s\nendpoint = https://gcs.example.test\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := mount.RcloneConfig(tt.m, &mount.RclonePattern{}, testSession, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rt.RemoteName != tt.wantName || rt.RemotePath != tt.wantPath || rt.ConfigText != tt.wantText {
				t.Errorf("got name %q path %q text\n%s\nwant name %q path %q text\n%s", rt.RemoteName, rt.RemotePath,
					rt.ConfigText, tt.wantName, tt.wantPath, tt.wantText)
			}
		})
	}
}

func TestRcloneSessionForms(t *testing.T) {
	m := &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"}}
	for _, sid := range []string{testSession, testHex, "12345678-1234-5678-1234-567812345678"} {
		rt, err := mount.RcloneConfig(m, nil, sid, nil)
		if err != nil || rt.RemoteName != "sandbox_s3_"+testHex {
			t.Errorf("%s: %q %v", sid, rt.RemoteName, err)
		}
	}
	_, err := mount.RcloneConfig(m, nil, "", nil)
	wantConfigError(t, err, "mount session is missing session_id", map[string]any{"type": mount.TypeS3})
	_, err = mount.RcloneConfig(&mount.Mount{Type: mount.TypeS3Files, S3Files: &mount.S3Files{FileSystemID: "fs"}}, nil, testSession, nil)
	wantConfigError(t, err, "invalid mount_pattern type", map[string]any{"type": mount.TypeS3Files})
	_, err = mount.RcloneConfig(&mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b", AccountID: "a",
		SecretAccessKey: sp("s")}}, nil, testSession, nil)
	wantConfigError(t, err, "r2 credentials must include both access_key_id and secret_access_key", nil)
}

func TestRcloneConfigFileMerge(t *testing.T) {
	m := &mount.Mount{Type: mount.TypeAzureBlob, AzureBlob: &mount.AzureBlob{Account: "acct", Container: "c"}}
	p := &mount.RclonePattern{RemoteName: sp("mine"), ConfigFilePath: sp("rclone.conf")}
	tests := []struct {
		name, existing, want string
		wantErr              string
	}{
		{"section last, trailing newlines dropped", "[other]\ntype = memory\n\n[mine]\nregion = x\n\n\n",
			"[other]\ntype = memory\n\n[mine]\nregion = x\ntype = azureblob\naccount = acct\nuse_msi = false\n", ""},
		{"indented headers", "  [mine]  \nkey = v\n  [next]\na = b\n",
			"  [mine]  \nkey = v\ntype = azureblob\naccount = acct\nuse_msi = false\n  [next]\na = b\n", ""},
		{"empty", " \n\t\n", "", "rclone config file is empty"},
		{"no section", "[minex]\n[other]\n", "", "rclone config missing required remote section"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := mount.RcloneConfig(m, p, testSession, []byte(tt.existing))
			if tt.wantErr != "" {
				wantConfigError(t, err, tt.wantErr, nil)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rt.ConfigText != tt.want {
				t.Errorf("got\n%q\nwant\n%q", rt.ConfigText, tt.want)
			}
		})
	}
}

func TestRemoteKind(t *testing.T) {
	for _, tt := range []struct {
		m    *mount.Mount
		want string
	}{
		{&mount.Mount{Type: mount.TypeGCS, GCS: &mount.GCS{Bucket: "g", AccessID: sp("a")}}, "gcs"},
		{&mount.Mount{Type: mount.TypeGCS, GCS: &mount.GCS{Bucket: "g", AccessID: sp(""), SecretAccessKey: sp("")}}, "gcs_s3"},
		{&mount.Mount{Type: mount.TypeR2, R2: &mount.R2{}}, "r2"},
		{&mount.Mount{Type: mount.TypeAzureBlob, AzureBlob: &mount.AzureBlob{}}, "azureblob"},
	} {
		if got, err := mount.RemoteKind(tt.m); err != nil || got != tt.want {
			t.Errorf("%s: got %q %v, want %q", tt.m.Type, got, err, tt.want)
		}
	}
}
