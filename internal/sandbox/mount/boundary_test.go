package mount

import (
	"errors"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func secRclone() Strategy {
	return Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: PatternRclone, Rclone: &RclonePattern{Mode: "fuse"}}}
}

func secPattern(t string) Strategy {
	return Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: t}}
}

func secDocker() Strategy {
	return Strategy{Type: StrategyDockerVolume, Driver: "rclone"}
}

// secEntry puts m at "data" in a BoundaryInput.
func secEntry(m *Mount) BoundaryInput {
	return BoundaryInput{Mounts: []BoundaryEntry{{Path: "data", Mount: m}}}
}

func TestCheckCredentialBoundaryRules(t *testing.T) {
	gcsFile := &Mount{Type: TypeGCS, GCS: &GCS{Bucket: "b", ServiceAccountFile: secStr("creds/sa.json")}, Strategy: secDocker()}
	withPaths := func(in BoundaryInput, paths ...string) BoundaryInput { in.MaterializedPaths = paths; return in }
	withAck := func(in BoundaryInput, scoped, broad []string) BoundaryInput {
		in.Ack = Acknowledgements{MountScoped: scoped, Broad: broad}
		return in
	}
	withBackend := func(in BoundaryInput, b string) BoundaryInput { in.Backend = b; return in }
	tests := []struct {
		name    string
		in      BoundaryInput
		wantMsg string
		wantCtx map[string]any
	}{
		{"docker_volume on unix_local", withBackend(secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b"}, Strategy: secDocker()}),
			"unix_local"), msgDockerVolumeBackend,
			map[string]any{"mount_type": "s3_mount", "strategy_type": "docker_volume", "sandbox_backend": "unix_local"}},
		{"docker_volume on docker", withBackend(secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b",
			AccessKeyID: secStr("AK")}, Strategy: secDocker()}), "docker"), "", nil},
		{"credential file under a materialised directory", withPaths(secEntry(gcsFile), "creds"),
			msgManifestCredentialFile, map[string]any{"mount_type": "gcs_mount", "credential_field": "service_account_file"}},
		{"credential file is a manifest file (absolute spelling)", withPaths(secEntry(&Mount{Type: TypeBox,
			Box: &Box{BoxConfigFile: secStr("/workspace/box.json"), BoxSubType: "user"}, Strategy: secDocker()}), "box.json"),
			msgManifestCredentialFile, map[string]any{"mount_type": "box_mount", "credential_field": "box_config_file"}},
		{"credential file under the mount entry itself", BoundaryInput{Mounts: []BoundaryEntry{{Path: "creds", Mount: gcsFile}}},
			msgManifestCredentialFile, map[string]any{"credential_field": "service_account_file"}},
		{"credential file under a plain directory only", secEntry(gcsFile), "", nil},
		{"rclone config file under a manifest entry", withPaths(secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b"},
			Strategy: Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: PatternRclone,
				Rclone: &RclonePattern{ConfigFilePath: secStr("conf/../rclone.conf")}}}}), "rclone.conf"),
			msgManifestCredentialFile, map[string]any{"credential_field": fieldConfigFilePath}},
		{"line break in an R2 value", secEntry(&Mount{Type: TypeR2, R2: &R2{Bucket: "b", AccountID: "acct\nx"},
			Strategy: secRclone()}), msgConfigLineBreak,
			map[string]any{"mount_type": "r2_mount", "configuration_fields": []string{"account_id"}}},
		{"line breaks in Box values", secEntry(&Mount{Type: TypeBox, Box: &Box{Token: secStr("t\r"),
			RootFolderID: secStr("1\n2"), BoxSubType: "user"}, Strategy: secRclone()}), msgConfigLineBreak,
			map[string]any{"configuration_fields": []string{"token", "root_folder_id"}}},
		{"line break in an Azure account", secEntry(&Mount{Type: TypeAzureBlob, AzureBlob: &AzureBlob{Account: "a\nb",
			Container: "c"}, Strategy: secRclone()}), msgConfigLineBreak,
			map[string]any{"mount_type": "azure_blob_mount", "configuration_fields": []string{"account"}}},
		{"line break outside rclone is an unsupported field", secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b",
			Region: secStr("us\neast")}, Strategy: secPattern(PatternMountpoint)}), msgUnsupportedCredentialField,
			map[string]any{"credential_fields": []string{"region"}}},
		{"partial GCS HMAC set: id only", secEntry(&Mount{Type: TypeGCS, GCS: &GCS{Bucket: "b", AccessID: secStr("ID")},
			Strategy: secRclone()}), msgIncompleteCredentialSet,
			map[string]any{"mount_type": "gcs_mount", "credential_fields": []string{"secret_access_key"}}},
		{"partial GCS HMAC set: blank secret", secEntry(&Mount{Type: TypeGCS, GCS: &GCS{Bucket: "b", AccessID: secStr("ID"),
			SecretAccessKey: secStr(" \t")}, Strategy: secRclone()}), msgIncompleteCredentialSet,
			map[string]any{"credential_fields": []string{"secret_access_key"}}},
		{"partial S3 set: token only", secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b", SessionToken: secStr("ST")},
			Strategy: secRclone()}), msgIncompleteCredentialSet,
			map[string]any{"credential_fields": []string{"access_key_id", "secret_access_key"}}},
		{"partial sets are fine outside the sandbox", secEntry(&Mount{Type: TypeR2, R2: &R2{Bucket: "b", AccountID: "a",
			AccessKeyID: secStr("AK")}, Strategy: secDocker()}), "", nil},
		{"blank authority value", secEntry(&Mount{Type: TypeAzureBlob, AzureBlob: &AzureBlob{Account: "a", Container: "c",
			AccountKey: secStr("  ")}, Strategy: secRclone()}), msgBlankAuthorityValue,
			map[string]any{"mount_type": "azure_blob_mount", "credential_fields": []string{"account_key"}}},
		{"box in-container without a non-interactive source", secEntry(&Mount{Type: TypeBox, Box: &Box{
			ClientID: secStr("id"), ClientSecret: secStr("cs"), BoxSubType: "user"}, Strategy: secRclone()}),
			msgBoxNonInteractive, map[string]any{"mount_type": "box_mount"}},
		{"box token needs a mount-scoped acknowledgement", secEntry(&Mount{Type: TypeBox, Box: &Box{Token: secStr("{}"),
			BoxSubType: "user"}, Strategy: secRclone()}), msgMountScopedNotAcknowledged,
			map[string]any{"credential_fields": []string{"token"}}},
		{"box token acknowledged", withAck(secEntry(&Mount{Type: TypeBox, Box: &Box{Token: secStr("{}"),
			BoxSubType: "user"}, Strategy: secRclone()}), []string{"data"}, nil), "", nil},
		{"credentialless rclone", secEntry(secS3(false)), "", nil},
		{"absolute acknowledgement of a relative entry", withAck(secEntry(secS3(true)), []string{"/workspace/./data"}, nil),
			"", nil},
		{"acknowledging a parent does not cover a child", withAck(BoundaryInput{Mounts: []BoundaryEntry{
			{Path: "parent/data", Mount: secS3(true)}}}, []string{"parent"}, nil), msgMountScopedNotAcknowledged,
			map[string]any{"credential_fields": []string{"access_key_id", "secret_access_key"}}},
		{"acknowledgement follows the mount target", withAck(BoundaryInput{Mounts: []BoundaryEntry{{Path: "logical",
			Target: "/mnt/data", Mount: secS3(true)}}}, []string{"/mnt/data"}, nil), "", nil},
		{"broad acknowledgement is not mount-scoped", withAck(secEntry(secS3(true)), nil, []string{"data"}),
			msgMountScopedNotAcknowledged, nil},
		{"identity id needs broad acknowledgement", withAck(secEntry(&Mount{Type: TypeAzureBlob, AzureBlob: &AzureBlob{
			Account: "a", Container: "c", IdentityClientID: secStr("cid")}, Strategy: secRclone()}), []string{"data"}, nil),
			msgBroadNotAcknowledged, map[string]any{"credential_fields": []string{"identity_client_id"}}},
		{"unsupported combination", secEntry(&Mount{Type: TypeGCS, GCS: &GCS{Bucket: "b", AccessToken: secStr("t")},
			Strategy: secPattern(PatternFuse)}), msgUnsupportedCombination,
			map[string]any{"strategy_type": "in_container", "pattern_type": "fuse", "credential_fields": []string{"access_token"}}},
		{"unsafe remote name", secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b"}, Strategy: Strategy{Type: StrategyInContainer,
			Pattern: &Pattern{Type: PatternRclone, Rclone: &RclonePattern{RemoteName: secStr(":s3,k=v")}}}}),
			msgUnsupportedCredentialField, map[string]any{"credential_fields": []string{fieldRemoteName}}},
		{"s3files cannot take a mount-scoped acknowledgement", withAck(secEntry(&Mount{Type: TypeS3Files,
			S3Files: &S3Files{FileSystemID: "fs"}, Strategy: secPattern(PatternS3Files)}), []string{"data"}, nil),
			msgNoMountScopedSupport, map[string]any{"strategy_type": "in_container"}},
		{"mountpoint cannot take a broad acknowledgement", withAck(secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b"},
			Strategy: secPattern(PatternMountpoint)}), nil, []string{"data"}), msgNoBroadSupport, nil},
		{"blobfuse with broad acknowledgement", withAck(secEntry(&Mount{Type: TypeAzureBlob, AzureBlob: &AzureBlob{
			Account: "a", Container: "c"}, Strategy: secPattern(PatternFuse)}), nil, []string{"data"}), "", nil},
		{"deepest mount first", BoundaryInput{Mounts: []BoundaryEntry{
			{Path: "a", Mount: &Mount{Type: TypeS3, S3: &S3{Bucket: "b", AccessKeyID: secStr("AK")}, Strategy: secRclone()}},
			{Path: "a/b", Mount: &Mount{Type: TypeR2, R2: &R2{Bucket: "b", AccountID: "x\n"}, Strategy: secRclone()}}}},
			msgConfigLineBreak, nil},
		{"custom strategy", secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b"}, Strategy: Strategy{Type: "modal_cloud_bucket"}}),
			msgCustomStrategy, nil},
		{"custom mount", secEntry(&Mount{Type: TypeS3, Strategy: secRclone()}), msgCustomMount, nil},
		{"custom pattern", secEntry(&Mount{Type: TypeS3, S3: &S3{Bucket: "b"}, Strategy: secPattern("sshfs")}),
			msgCustomPattern, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCredentialBoundary(tt.in)
			if tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v (%v)", err, secContextOf(err))
				}
				return
			}
			var se *sandbox.Error
			if !errors.As(err, &se) || se.Code != sandbox.CodeMountConfigInvalid || se.Message != tt.wantMsg {
				t.Fatalf("got %v, want %q", err, tt.wantMsg)
			}
			for k, want := range tt.wantCtx {
				if !reflect.DeepEqual(se.Context[k], want) {
					t.Errorf("context[%s] = %#v, want %#v", k, se.Context[k], want)
				}
			}
		})
	}
}

func secContextOf(err error) map[string]any {
	var se *sandbox.Error
	if errors.As(err, &se) {
		return se.Context
	}
	return nil
}

func TestValidateAcknowledgementPath(t *testing.T) {
	tests := []struct {
		path, want string
	}{
		{"data", ""},
		{"./data/sub/", ""},
		{"/workspace/data", ""},
		{"/mnt/data", ""},
		{"", msgAckNonRoot},
		{".", msgAckNonRoot},
		{"/workspace/", msgAckNonRoot},
		{"/", msgAckNonRoot},
		{`data\child`, msgAckSeparator},
		{"data/*", msgAckWildcard},
		{"data/[ab]", msgAckWildcard},
		{"data/../other", msgAckParent},
		{"/workspace/../data", msgAckParent},
		{"C:/data", "manifest path must be relative: C:/data"},
	}
	for _, tt := range tests {
		err := ValidateAcknowledgementPath("/workspace", tt.path)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.path, got, tt.want)
		}
	}
	err := CheckCredentialBoundary(BoundaryInput{Ack: Acknowledgements{Broad: []string{"a/*"}}})
	if err == nil || err.Error() != msgAckWildcard {
		t.Fatalf("CheckCredentialBoundary must validate acknowledgements first, got %v", err)
	}
}
