package mount

import (
	"encoding/json"
	"reflect"
	"testing"
)

func secJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSanitizeRawManifestMountAuthority(t *testing.T) {
	tests := []struct {
		name, in, want string
		redacted       bool
		wantErr        string
	}{
		{"not an object", `[1]`, `[1]`, false, ""},
		{"no mounts", `{"entries":{"a":{"type":"file","content":"x"}}}`, `{"entries":{"a":{"type":"file","content":"x"}}}`,
			false, ""},
		{"nested mount, multi-line rclone values, azure endpoint",
			`{"entries":{"d":{"type":"dir","children":{"m":{"type":"azure_blob_mount","account":"a\nb","container":"c",
			"endpoint":"https://h?sv=1","account_key":"K","mount_strategy":{"type":"in_container","pattern":{"type":"rclone"}}}}}}}`,
			`{"entries":{"d":{"type":"dir","children":{"m":{"type":"azure_blob_mount","account":"","container":"c",
			"endpoint":null,"account_key":null,"mount_strategy":{"type":"in_container","pattern":{"type":"rclone"}}}}}}}`,
			true, ""},
		{"s3 files extra options and pattern options",
			`{"entries":{"m":{"type":"s3_files_mount","file_system_id":"fs","extra_options":{"iam":null},
			"mount_strategy":{"type":"in_container","pattern":{"type":"s3files","options":{"extra_options":{"k":"v"},"x":1}}}}}}`,
			`{"entries":{"m":{"type":"s3_files_mount","file_system_id":"fs","extra_options":{},
			"mount_strategy":{"type":"in_container","pattern":{"type":"s3files","options":{"extra_options":{}}}}}}}`,
			true, ""},
		{"implicit broad authority is flagged", `{"entries":{"m":{"type":"azure_blob_mount","account":"a","container":"c",
			"mount_strategy":{"type":"in_container","pattern":{"type":"fuse"}}}}}`,
			`{"entries":{"m":{"type":"azure_blob_mount","account":"a","container":"c",
			"mount_strategy":{"type":"in_container","pattern":{"type":"fuse"}}}}}`, true, ""},
		{"mountpoint endpoint authority", `{"entries":{"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",
			"pattern":{"type":"mountpoint","options":{"endpoint_url":"https://u@h","region":"r"}}}}}}`,
			`{"entries":{"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",
			"pattern":{"type":"mountpoint","options":{"endpoint_url":null,"region":"r"}}}}}}`, true, ""},
		{"safe rclone settings are kept", `{"entries":{"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",
			"pattern":{"type":"rclone","remote_name":"ok name","extra_args":["--uid","1000","--allow-other"]}}}}}`,
			`{"entries":{"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",
			"pattern":{"type":"rclone","remote_name":"ok name","extra_args":["--uid","1000","--allow-other"]}}}}}`, false, ""},
		{"credential file content is emptied", `{"entries":{"sa.json":{"type":"file","content":"SECRET"},
			"m":{"type":"gcs_mount","bucket":"b","service_account_file":"/workspace/sa.json",
			"mount_strategy":{"type":"docker_volume","driver":"rclone"}}}}`,
			`{"entries":{"sa.json":{"type":"file","content":""},"m":{"type":"gcs_mount","bucket":"b","service_account_file":null,
			"mount_strategy":{"type":"docker_volume","driver":"rclone"}}}}`, true, ""},
		{"--config path in a local_dir copy", `{"entries":{"conf":{"type":"local_dir","src":"host"},
			"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",
			"pattern":{"type":"rclone","extra_args":["--config","conf/rclone.conf"]}}}}}`, ``, false,
			msgRawCredentialFile},
		{"bare --config", `{"entries":{"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",
			"pattern":{"type":"rclone","extra_args":["--config"]}}}}}`, ``, false, msgRawConfigArgShape},
		{"credential file path not a string", `{"entries":{"m":{"type":"box_mount","box_config_file":1,
			"mount_strategy":{"type":"docker_volume","driver":"rclone"}}}}`, ``, false, msgRawFilePathShape},
		{"unknown mount-like entry", `{"entries":{"m":{"type":"sshfs_mount","mount_strategy":{}}}}`, ``, false,
			msgRawUnknownMount},
		{"unknown strategy", `{"entries":{"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"nope"}}}}`, ``, false,
			msgRawUnknownStrategy},
		{"unknown pattern", `{"entries":{"m":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",
			"pattern":{"type":"nope"}}}}}`, ``, false, msgRawUnknownPattern},
		{"malformed entries", `{"entries":{"m":"s3"}}`, ``, false, msgRawEntries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := secJSON(t, tt.in)
			before := secJSON(t, tt.in)
			got, redacted, err := SanitizeRawManifestMountAuthority(in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %v, want error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := secJSON(t, tt.want); !reflect.DeepEqual(got, want) || redacted != tt.redacted {
				t.Fatalf("got %v %v, want %v %v", got, redacted, want, tt.redacted)
			}
			if !reflect.DeepEqual(in, before) {
				t.Fatal("the input payload was modified")
			}
		})
	}
}

func TestSanitizeRawManifestClearsAMalformedPayload(t *testing.T) {
	in := map[string]any{"entries": map[string]any{"m": "x"}, "secret": "s"}
	if _, _, err := SanitizeRawManifestMountAuthority(in); err == nil || len(in) != 0 {
		t.Fatalf("err %v, payload %v: a malformed payload must be emptied", err, in)
	}
}
