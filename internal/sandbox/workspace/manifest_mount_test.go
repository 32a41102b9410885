package workspace

import (
	"context"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

const s3Entry = `"type": "s3_mount", "bucket": "b", "endpoint_url": "http://127.0.0.1:9", "s3_provider": "Other", ` +
	`"mount_strategy": {"type": "in_container", "pattern": {"type": "rclone"}}`

func TestCheckManifestMountRefusals(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"entries": {"m": {` + s3Entry + `, "access_key_id": "AKIA", "secret_access_key": "s"}}}`,
			`entry "m": sets access_key_id, secret_access_key in the manifest's JSON, which is stored in plain text`},
		{`{"entries": {"m": {` + s3Entry + `}, "m/f": {"type": "file", "content": ""}}}`,
			`entry "m/f" lies inside s3_mount entry "m": the mount would hide it`},
		{`{"entries": {"m": {` + s3Entry + `, "mount_path": "."}}}`, `resolves to the workspace root itself`},
	} {
		m, err := manifest.Parse([]byte(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if _, err = CheckManifest(m); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestPlanManifestMountCredentials(t *testing.T) {
	eng, _ := newEngine(t)
	m, err := manifest.Parse([]byte(`{"entries": {"d": {"type": "dir"}, "d/m": {` + s3Entry + `}}}`))
	if err != nil {
		t.Fatal(err)
	}
	in := ManifestInputs{MountCredentials: map[string]map[string]string{"d/m": {"access_key_id": "AKIAX", "secret_access_key": "sek"}},
		CredentialsVersion: "2",
		MountApplied:       map[string]MountApplied{"d/m": {SessionID: "0123", Version: "1"}}}
	plan, err := eng.PlanManifestFrom(context.Background(), m, in)
	if err != nil {
		t.Fatal(err)
	}
	pe := plan.Entries[1]
	if pe.Mount == nil || pe.Mount.S3 == nil || *pe.Mount.S3.AccessKeyID != "AKIAX" || *pe.Mount.S3.SecretAccessKey != "sek" {
		t.Fatalf("planned mount = %+v", pe.Mount)
	}
	if strings.Contains(pe.MountEntry, "sek") || strings.Contains(pe.MountEntry, "AKIAX") {
		t.Errorf("the recorded entry carries a credential: %s", pe.MountEntry)
	}
	if pe.MountSession != "" {
		t.Errorf("a mount made with credentials version 1 keeps its session %q under version 2", pe.MountSession)
	}
	got := plan.Expected().Entries["d/m"]
	if !got.IsMount || !got.Mounted || got.Permissions != "" || len(plan.Expected().Files) != 0 {
		t.Errorf("expected result = %+v, files %v", got, plan.Expected().Files)
	}
	if s := in.Secrets(); len(s) != 2 {
		t.Errorf("Secrets() = %d values, want 2", len(s))
	}
	in.MountApplied["d/m"] = MountApplied{SessionID: "0123", Version: "2", Entry: pe.MountEntry}
	if plan, err = eng.PlanManifestFrom(context.Background(), m, in); err != nil || plan.Entries[1].MountSession != "0123" {
		t.Errorf("the same entry and version keep the session: %v, %q", err, plan.Entries[1].MountSession)
	}
	in.MountCredentials["d/m"]["token"] = "x"
	if _, err := eng.PlanManifestFrom(context.Background(), m, in); err == nil || !strings.Contains(err.Error(), "credential token is not one of s3_mount's") {
		t.Errorf("a field s3_mount lacks: %v", err)
	}
}
