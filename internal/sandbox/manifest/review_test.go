package manifest

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

func TestManifestReview(t *testing.T) {
	src := `{"version":1,"root":"/workspace","entries":{` +
		`"a.txt":{"type":"file","content":"secret-text"},` +
		`"d":{"type":"dir","children":{"b.txt":{"type":"file","content":"nested-secret"}}},` +
		`"s3":{"type":"s3_mount","bucket":"bkt","access_key_id":"AKIA-secret","mount_strategy":{"type":"in_container","pattern":{"type":"rclone"}}},` +
		`"src":{"type":"local_dir","src":"skills"}},` +
		`"environment":{"value":{"TOKEN":"env-secret"}}}`
	m, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := m.JSON()
	fields := func(typ string) []string {
		if typ == "s3_mount" {
			return []string{"access_key_id", "secret_access_key"}
		}
		return nil
	}
	b, err := m.Review(fields).IndentedJSON()
	if err != nil {
		t.Fatal(err)
	}
	review := string(b)
	for _, secret := range []string{"secret-text", "nested-secret", "AKIA-secret", "env-secret"} {
		if strings.Contains(review, secret) {
			t.Errorf("review shows %s:\n%s", secret, review)
		}
	}
	for _, want := range []string{
		fmt.Sprintf(`"content": "(sensitive value, sha256 %x)"`, sha256.Sum256([]byte("secret-text"))),
		`"access_key_id": "(sensitive value)"`, `"secret_access_key": null`,
		`"TOKEN": "(sensitive value)"`, `"src": "skills"`, `"bucket": "bkt"`,
	} {
		if !strings.Contains(review, want) {
			t.Errorf("review lacks %s:\n%s", want, review)
		}
	}
	if after, _ := m.JSON(); string(after) != string(before) {
		t.Errorf("Review changed the manifest:\n%s\n%s", before, after)
	}
}

func TestManifestReviewStrategyOptions(t *testing.T) {
	m, err := Parse([]byte(`{"entries":{"vol":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"docker_volume","driver":"rclone",` +
		`"driver_options":{"s3-secret-access-key":"DRVsecret"}}},"fuse":{"type":"s3_mount","bucket":"b","mount_strategy":{"type":"in_container",` +
		`"pattern":{"type":"rclone","extra_args":["--s3-secret-access-key=ARGsecret"]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Review(func(string) []string { return nil }).JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"DRVsecret", "ARGsecret"} {
		if strings.Contains(string(out), leak) {
			t.Errorf("review shows %s:\n%s", leak, out)
		}
	}
	for _, kept := range []string{`"s3-secret-access-key"`, `"driver":"rclone"`, `"bucket":"b"`} {
		if !strings.Contains(strings.ReplaceAll(string(out), " ", ""), kept) {
			t.Errorf("review lost %s:\n%s", kept, out)
		}
	}
}
