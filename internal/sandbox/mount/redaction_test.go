package mount

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func secStr(s string) *string { return &s }

func secS3(keys bool) *Mount {
	m := &Mount{Type: TypeS3, ReadOnly: true, S3: &S3{Bucket: "bucket", S3Provider: "AWS"},
		Strategy: Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: PatternRclone, Rclone: &RclonePattern{Mode: "fuse"}}}}
	if keys {
		m.S3.AccessKeyID, m.S3.SecretAccessKey = secStr("AKID"), secStr("SECRET")
	}
	return m
}

func TestRedactReplacesSecretsAndTheirShellQuotedForms(t *testing.T) {
	secret := "se cret'x"
	quoted := sandbox.ShellQuote(secret) // 'se cret'"'"'x'
	tests := []struct {
		name    string
		err     error
		secrets []string
		want    string
	}{
		{"plain error, raw and quoted forms", fmt.Errorf("failed: %s and %s", secret, quoted), []string{secret},
			"failed: REDACTED and REDACTED"},
		{"safe value needs no quoting", errors.New("key AKID rejected"), []string{"AKID"}, "key REDACTED rejected"},
		{"empty secrets are ignored", errors.New("nothing here"), []string{"", ""}, "nothing here"},
		{"secrets in given order", errors.New("abc"), []string{"b", "abc"}, "aREDACTEDc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Redact(tt.err, tt.secrets)
			if got.Error() != tt.want {
				t.Fatalf("got %q, want %q", got.Error(), tt.want)
			}
		})
	}
	if Redact(nil, []string{secret}) != nil {
		t.Fatal("Redact(nil) must be nil")
	}
}

func TestRedactKeepsStructuredErrorFields(t *testing.T) {
	retryable := true
	cause := fmt.Errorf("stderr: %s", "SECRET")
	in := &sandbox.Error{Code: sandbox.CodeMountFailed, Op: "materialize", Message: "mount SECRET failed",
		Context: map[string]any{"command": "sh -lc 'export K=SECRET'", "argv": []string{"x", "SECRET"},
			"nested": map[string]any{"v": []any{"SECRET"}}, "exit": 1},
		Retryable: &retryable, Cause: cause}
	got, ok := Redact(in, []string{"SECRET"}).(*sandbox.Error) //nolint:errorlint // Redact returns the structured error itself
	if !ok {
		t.Fatalf("got %T, want *sandbox.Error", got)
	}
	want := map[string]any{"command": "sh -lc 'export K=REDACTED'", "argv": []string{"x", "REDACTED"},
		"nested": map[string]any{"v": []any{"REDACTED"}}, "exit": 1}
	if got.Code != in.Code || got.Op != in.Op || got.Retryable != in.Retryable || got.Message != "mount REDACTED failed" ||
		!reflect.DeepEqual(got.Context, want) || got.Cause.Error() != "stderr: REDACTED" {
		t.Fatalf("unexpected redaction: %+v", got)
	}
	if in.Message != "mount SECRET failed" || in.Context["command"] != "sh -lc 'export K=SECRET'" {
		t.Fatal("the original error was modified")
	}
}

func TestSecretsForEachMountType(t *testing.T) {
	inContainer := func(p string) Strategy { return Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: p}} }
	tests := []struct {
		name string
		m    *Mount
		want []string
	}{
		{"s3 keys, token and endpoint authority", &Mount{Type: TypeS3, S3: &S3{Bucket: "b", AccessKeyID: secStr("AK"),
			SecretAccessKey: secStr("SK"), SessionToken: secStr("ST"), Endpoint: secStr("https://u:p@h"), Region: secStr("r")},
			Strategy: inContainer(PatternRclone)},
			[]string{"AK", "SK", "ST", "https://u:p@h", "u", "p"}},
		{"gcs every credential", &Mount{Type: TypeGCS, GCS: &GCS{Bucket: "b", AccessID: secStr("ID"),
			SecretAccessKey: secStr("SK"), ServiceAccountFile: secStr("/sa.json"), ServiceAccountCredentials: secStr("{}"),
			AccessToken: secStr("TOK"), EndpointURL: secStr("https://storage.example")}, Strategy: inContainer(PatternRclone)},
			[]string{"ID", "SK", "/sa.json", "{}", "TOK"}},
		{"r2 keys and signed custom domain", &Mount{Type: TypeR2, R2: &R2{Bucket: "b", AccountID: "acct",
			AccessKeyID: secStr("AK"), SecretAccessKey: secStr(""), CustomDomain: secStr("https://r2.example?sig=v%2B")},
			Strategy: inContainer(PatternRclone)},
			[]string{"AK", "https://r2.example?sig=v%2B", "sig=v%2B", "sig=v+", "v+"}},
		{"azure identity and key", &Mount{Type: TypeAzureBlob, AzureBlob: &AzureBlob{Account: "a", Container: "c",
			IdentityClientID: secStr("CID"), AccountKey: secStr("KEY")}, Strategy: inContainer(PatternFuse)},
			[]string{"CID", "KEY"}},
		{"box secrets but not the client id", &Mount{Type: TypeBox, Box: &Box{ClientID: secStr("client"),
			ClientSecret: secStr("CS"), AccessToken: secStr("AT"), Token: secStr("{\"t\":1}"), BoxConfigFile: secStr("/box.json"),
			ConfigCredentials: secStr("CC"), BoxSubType: "user"}, Strategy: inContainer(PatternRclone)},
			[]string{"CS", "AT", "{\"t\":1}", "/box.json", "CC"}},
		{"s3 files extra options", &Mount{Type: TypeS3Files, S3Files: &S3Files{FileSystemID: "fs-1",
			ExtraOptions: []Option{{Key: "tls"}, {Key: "iam", Value: secStr("role")}}},
			Strategy: Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: PatternS3Files,
				S3Files: &S3FilesOptions{ExtraOptions: []Option{{Key: "k", Value: secStr("pv")}}}}}},
			[]string{"role", "pv"}},
		{"docker driver options", &Mount{Type: TypeS3, S3: &S3{Bucket: "b"}, Strategy: Strategy{Type: StrategyDockerVolume,
			Driver: "rclone", DriverOptions: map[string]string{"z": "ZV", "a": "AV"}}}, []string{"AV", "ZV"}},
		{"unsafe rclone settings and mountpoint endpoint", &Mount{Type: TypeS3, S3: &S3{Bucket: "b"},
			Strategy: Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: PatternRclone, Rclone: &RclonePattern{
				RemoteName: secStr(":s3,k=v"), ExtraArgs: []string{"--s3-secret-access-key=X"}}}}},
			[]string{":s3,k=v", "X", "--s3-secret-access-key=X"}},
		{"nil mount", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Secrets(tt.m); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSanitizeReplacesErrorsOfMountsWithAuthority(t *testing.T) {
	retryable := false
	structured := &sandbox.Error{Code: sandbox.CodeMountFailed, Op: "exec", Message: "mount failed: SK",
		Context: map[string]any{"stderr": "SK"}, Retryable: &retryable, Cause: errors.New("SK")}
	tests := []struct {
		name     string
		err      error
		m        *Mount
		wantMsg  string
		wantCode string
	}{
		{"safe configuration message kept", configError(msgIncompleteCredentialSet, map[string]any{"mount_type": "s3_mount"}),
			secS3(true), msgIncompleteCredentialSet, sandbox.CodeMountConfigInvalid},
		{"generator message kept", configError("r2 credentials must include both access_key_id and secret_access_key", nil),
			secS3(true), "r2 credentials must include both access_key_id and secret_access_key", sandbox.CodeMountConfigInvalid},
		{"unknown configuration message replaced", configError("bad value SK", nil), secS3(true),
			MsgInvalidConfiguration, sandbox.CodeMountConfigInvalid},
		{"other structured error", structured, secS3(true), MsgProtectedOperation, sandbox.CodeMountFailed},
		{"wrapped structured error", fmt.Errorf("apply: %w", structured), secS3(true), MsgProtectedOperation,
			sandbox.CodeMountFailed},
		{"plain error", errors.New("exec SK"), secS3(true), MsgProtectedOperation, ""},
		{"implicit broad authority (blobfuse)", errors.New("exec SK"), &Mount{Type: TypeAzureBlob,
			AzureBlob: &AzureBlob{Account: "a", Container: "c"},
			Strategy:  Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: PatternFuse}}}, MsgProtectedOperation, ""},
		{"no authority: unchanged", errors.New("exec SK"), secS3(false), "exec SK", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.err, tt.m)
			if got.Error() != tt.wantMsg {
				t.Fatalf("message %q, want %q", got.Error(), tt.wantMsg)
			}
			var se *sandbox.Error
			if errors.As(got, &se) != (tt.wantCode != "") {
				t.Fatalf("structured: %T, want code %q", got, tt.wantCode)
			}
			if se == nil {
				return
			}
			if se.Code != tt.wantCode || len(se.Context) != 0 || se.Cause != nil || se.Retryable == nil || *se.Retryable {
				t.Fatalf("unexpected sanitized error %+v", se)
			}
		})
	}
	if got := Sanitize(fmt.Errorf("exec: %w", context.Canceled), secS3(true)); got != context.Canceled { //nolint:errorlint // the bare cancellation error must come back
		t.Fatalf("cancellation: got %v", got)
	}
	if Sanitize(nil, secS3(true)) != nil {
		t.Fatal("Sanitize(nil) must be nil")
	}
}

func TestCredentialFieldsAndHasAuthority(t *testing.T) {
	mp := &Mount{Type: TypeS3, S3: &S3{Bucket: "b", S3Provider: "AWS\nx", Endpoint: secStr("https://h?sig=1")},
		Strategy: Strategy{Type: StrategyInContainer, Pattern: &Pattern{Type: PatternMountpoint,
			Mountpoint: &MountpointOptions{EndpointURL: secStr("https://user@h")}}}}
	want := []string{"endpoint_url", "s3_provider", fieldPatternEndpointURL}
	if got := CredentialFields(mp); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if !HasAuthority(mp) || HasAuthority(secS3(false)) || HasAuthority(nil) {
		t.Fatal("HasAuthority disagrees with CredentialFields")
	}
	if !HasAuthority(&Mount{Type: "custom_mount"}) {
		t.Fatal("a mount type the engine does not know may hide authority")
	}
}
