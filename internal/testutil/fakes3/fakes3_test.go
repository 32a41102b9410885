package fakes3_test

import (
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/fakes3"
)

var files = map[string]string{
	"hello.txt":      "hello world\n",
	"dir/nested.txt": "nested\n",
}

// get sends a GET signed (in name only) with key ID id.
func get(t *testing.T, url, id string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	if id != "" {
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+id+"/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestStart_servesSeededBucketToItsKeyOnly(t *testing.T) {
	s := fakes3.Start(t, "bucket", files)
	if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") {
		t.Fatalf("endpoint %q is not on 127.0.0.1", s.Endpoint)
	}
	other := fakes3.Start(t, "bucket", nil)
	if s.AccessKeyID == other.AccessKeyID || s.SecretAccessKey == other.SecretAccessKey {
		t.Fatal("two servers share their keys")
	}

	if code, body := get(t, s.Endpoint+"/bucket/dir/nested.txt", s.AccessKeyID); code != http.StatusOK || body != "nested\n" {
		t.Fatalf("GET with the key: %d %q", code, body)
	}
	for _, id := range []string{"", "AKWRONG"} {
		if code, body := get(t, s.Endpoint+"/bucket/hello.txt", id); code != http.StatusForbidden || !strings.Contains(body, "InvalidAccessKeyId") {
			t.Fatalf("GET with key ID %q: %d %q, want 403 InvalidAccessKeyId", id, code, body)
		}
	}
	if s.Writes() != 0 {
		t.Fatalf("Writes = %d after reads only", s.Writes())
	}
	req, _ := http.NewRequest(http.MethodPut, s.Endpoint+"/bucket/new.txt", strings.NewReader("x"))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	if s.Writes() != 1 {
		t.Fatalf("Writes = %d after a refused PUT, want 1", s.Writes())
	}
}

func TestRcloneEnv_dropsAWSCABundle(t *testing.T) {
	t.Setenv("AWS_CA_BUNDLE", "/nonexistent/ca.pem")
	t.Setenv("SANDBOX_FAKES3_KEPT", "1")
	env := strings.Join(fakes3.RcloneEnv(), "\n")
	if strings.Contains(env, "AWS_CA_BUNDLE=") {
		t.Fatal("AWS_CA_BUNDLE is still in RcloneEnv")
	}
	if !strings.Contains(env, "SANDBOX_FAKES3_KEPT=1") {
		t.Fatal("RcloneEnv dropped another variable")
	}
}

// rclone, given the generated configuration (provider Other, no region, no
// force_path_style), lists and reads the bucket; with another key ID it
// fails. AWS_CA_BUNDLE is set here as on machines whose S3 tools trust a
// custom CA: RcloneEnv must keep it from rclone.
func TestRclone_listsBucketWithGeneratedConfig(t *testing.T) {
	rclone := fakes3.LookRclone(t)
	t.Setenv("AWS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
	s := fakes3.Start(t, "bucket", files)
	conf := s.WriteRcloneConfig(t, "r")

	run := func(conf string, args ...string) (string, error) {
		cmd := exec.Command(rclone, append(args, "--config", conf, "--retries", "1", "--low-level-retries", "1")...)
		cmd.Env = fakes3.RcloneEnv()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(conf, "lsf", "-R", "r:bucket")
	if err != nil {
		t.Fatalf("rclone lsf: %v\n%s", err, out)
	}
	if want := "dir/\ndir/nested.txt\nhello.txt\n"; sortLines(out) != want {
		t.Fatalf("rclone lsf -R:\n%s\nwant:\n%s", out, want)
	}
	if out, err := run(conf, "cat", "r:bucket/dir/nested.txt"); err != nil || out != "nested\n" {
		t.Fatalf("rclone cat: %v %q", err, out)
	}

	wrong := strings.Replace(s.RcloneConfig("r"), s.AccessKeyID, "AKWRONG", 1)
	wrongConf := t.TempDir() + "/wrong.conf"
	writeFile(t, wrongConf, wrong)
	if out, err := run(wrongConf, "lsf", "r:bucket"); err == nil || !strings.Contains(out, "InvalidAccessKeyId") {
		t.Fatalf("rclone lsf with another key ID: err %v, output:\n%s", err, out)
	}
	if s.Writes() != 0 {
		t.Fatalf("listing wrote %d times", s.Writes())
	}
}
