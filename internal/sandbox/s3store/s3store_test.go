package s3store

import "testing"

func TestParseURL(t *testing.T) {
	for u, want := range map[string][2]string{
		"s3://b/k.tar": {"b", "k.tar"}, "s3://b/a/b/c.tar": {"b", "a/b/c.tar"},
	} {
		b, k, err := ParseURL(u)
		if err != nil || b != want[0] || k != want[1] {
			t.Errorf("ParseURL(%q) = %q %q %v", u, b, k, err)
		}
	}
	for _, bad := range []string{"", "s3://", "s3://b", "s3://b/", "s3:///k", "https://b/k", "s3://b/dir/"} {
		if _, _, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		}
	}
}

func TestSnapshotKey(t *testing.T) {
	for prefix, want := range map[string]string{"": "id.tar", "/": "id.tar", "runs": "runs/id.tar", "/runs/x/": "runs/x/id.tar"} {
		if got := SnapshotKey(prefix, "id"); got != want {
			t.Errorf("SnapshotKey(%q) = %q, want %q", prefix, got, want)
		}
	}
}

func TestCheckEndpointAndCredentials(t *testing.T) {
	for _, ok := range []string{"", "http://127.0.0.1:9000", "https://s3.example.test"} {
		if err := CheckEndpoint(ok); err != nil {
			t.Errorf("CheckEndpoint(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"127.0.0.1:9000", "ftp://h", "http://", "https://u:p@h"} {
		if CheckEndpoint(bad) == nil {
			t.Errorf("CheckEndpoint(%q) accepted", bad)
		}
	}
	if CheckCredentials(Credentials{AccessKeyID: "a"}) == nil || CheckCredentials(Credentials{SecretAccessKey: "s"}) == nil {
		t.Error("a partial key pair was accepted")
	}
	if CheckCredentials(Credentials{}) != nil || CheckCredentials(Credentials{AccessKeyID: "a", SecretAccessKey: "s"}) != nil {
		t.Error("a complete or empty key pair was refused")
	}
}

func TestPartSizesReachFiveTiB(t *testing.T) {
	var total int64
	for n := 1; n <= maxParts; n++ {
		total += int64(partSize(n))
	}
	if partSize(1) != PartSize || partSize(1000) != PartSize || total < 5<<40 || partSize(maxParts) > 5<<30 {
		t.Fatalf("parts of %d..%d bytes, %d in all", partSize(1), partSize(maxParts), total)
	}
}
