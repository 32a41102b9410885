package provider

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/checksum"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/digestcache"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// inodeOf returns the inode of the file at p.
func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	must(t, err)
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Fatalf("no inode for %s", p)
	}
	return st.Ino
}

// TestAccFile_checksumsOnDemand: MD5, SHA-1 and SHA-512 are null until
// `checksums` asks for them; asking later plans them known, as an update
// that does not rewrite the file, and dropping them nulls them again.
func TestAccFile_checksumsOnDemand(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	var ino uint64
	p := func() string { return filepath.Join(env.wsRoot(), "sums.txt") }
	sameFile := func(*terraform.State) error {
		if got := inodeOf(t, p()); got != ino {
			return fmt.Errorf("sums.txt was rewritten (inode %d, was %d)", got, ino)
		}
		return nil
	}
	cfg := func(sums string) string { return fileConfig(env, "sums.txt", `content = "sums\n"`+"\n"+sums) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{
			{
				Config:           cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: digestChecks("sandbox_file.f", "sums\n")},
				Check: resource.ComposeTestCheckFunc(checkWorkspaceFile(env, "sums.txt", "sums\n", 0o755),
					func(*terraform.State) error { ino = inodeOf(t, p()); return nil }),
			},
			{
				Config: cfg(`checksums = ["md5", "sha1"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(digestChecks("sandbox_file.f", "sums\n", "md5", "sha1"),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate)),
				},
				Check: resource.ComposeTestCheckFunc(sameFile, checkWorkspaceFile(env, "sums.txt", "sums\n", 0o755)),
			},
			{
				Config: cfg(`checksums = ["sha512"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(digestChecks("sandbox_file.f", "sums\n", "sha512"),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate)),
				},
				Check: sameFile,
			},
			{
				Config: cfg(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: append(digestChecks("sandbox_file.f", "sums\n"),
						plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate)),
				},
				Check: sameFile,
			},
		},
	})
}

// TestAccFile_sourceHashedOnce: the plan of a host source reads it once
// through SHA-256 alone unless `checksums` asks for more, counted in bytes
// per algorithm (checksum.Hashed) with the digest cache off, so every plan
// reads the file.
func TestAccFile_sourceHashedOnce(t *testing.T) {
	t.Setenv(digestcache.Env, "off")
	env := newTestEnv(t)
	const size = 3<<20 + 17
	src := env.writeSource("big.bin", string(bytes.Repeat([]byte{'x'}, size)), 0o644)
	for _, c := range []struct {
		sums  string
		extra bool
	}{{"", false}, {`checksums = ["md5", "sha1", "sha512"]`, true}} {
		before := checksum.Hashed()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6Factories,
			TerraformVersionChecks:   requireTF111,
			Steps: []resource.TestStep{{
				Config:             fileConfig(env, "big.bin", fmt.Sprintf("source = %q\n%s", src, c.sums)),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			}},
		})
		after := checksum.Hashed()
		d := checksum.HashedBytes{MD5: after.MD5 - before.MD5, SHA1: after.SHA1 - before.SHA1,
			SHA256: after.SHA256 - before.SHA256, SHA512: after.SHA512 - before.SHA512}
		if d.SHA256 == 0 || d.SHA256%size != 0 {
			t.Fatalf("%q: SHA-256 hashed %d bytes, want whole reads of the %d-byte source", c.sums, d.SHA256, size)
		}
		want := int64(0)
		if c.extra {
			want = d.SHA256 // in the same reads
		}
		if d.MD5 != want || d.SHA1 != want || d.SHA512 != want {
			t.Errorf("%q: hashed MD5 %d, SHA-1 %d, SHA-512 %d bytes beside SHA-256's %d; want %d each",
				c.sums, d.MD5, d.SHA1, d.SHA512, d.SHA256, want)
		}
		t.Logf("%q: %d plan reads of the source", c.sums, d.SHA256/size)
	}
}

// TestAccFile_upgradeChecksums: state written by schema version 0, which
// published MD5, SHA-1 and SHA-512 always (no `checksums`), upgrades in
// place: the plan is empty with and without a refresh, those digests leave
// state and SHA-256 stays; asking for one later plans it known and the
// apply records it without rewriting the file.
func TestAccFile_upgradeChecksums(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "src.txt"), []byte("from the host\n"), 0o644))
	config := func(extra string) {
		must(t, os.WriteFile(filepath.Join(dir, "main.tf"), []byte(requiredSandbox+fmt.Sprintf(`
resource "sandbox_workspace" "ws" {
  local {}
}
resource "sandbox_file" "text" {
  workspace_id = sandbox_workspace.ws.id
  path         = "text.txt"
  content      = "inline\n"
  %s
}
resource "sandbox_file" "bin" {
  workspace_id   = sandbox_workspace.ws.id
  path           = "bin"
  content_base64 = "AAEC/w=="
}
resource "sandbox_file" "src" {
  workspace_id = sandbox_workspace.ws.id
  path         = "src.txt"
  source       = "${path.root}/src.txt"
}
`, extra)), 0o644))
	}
	config("")
	contents := map[string]string{"sandbox_file.text": "inline\n", "sandbox_file.bin": "\x00\x01\x02\xff", "sandbox_file.src": "from the host\n"}
	c := newCLIRun(t, dir)
	c.run("apply.log", "apply", "-input=false", "-auto-approve", "-no-color")
	t.Cleanup(func() { c.run("destroy.log", "destroy", "-input=false", "-auto-approve", "-no-color") })

	// Rewrite the state as version 0 wrote it: every digest, no checksums.
	statePath := filepath.Join(dir, "terraform.tfstate")
	b, err := os.ReadFile(statePath)
	must(t, err)
	var st map[string]any
	must(t, json.Unmarshal(b, &st))
	for _, r := range jsonArr(t, st["resources"]) {
		res := jsonObj(t, r)
		body, ok := contents[fmt.Sprint(res["type"], ".", res["name"])]
		if !ok {
			continue
		}
		inst := jsonObj(t, jsonArr(t, res["instances"])[0])
		attrs := jsonObj(t, inst["attributes"])
		if inst["schema_version"] != float64(1) {
			t.Fatalf("sandbox_file state is at schema version %v, want 1", inst["schema_version"])
		}
		inst["schema_version"] = 0
		delete(attrs, "checksums")
		md, s1, s512 := md5.Sum([]byte(body)), sha1.Sum([]byte(body)), sha512.Sum512([]byte(body))
		attrs["content_md5"], attrs["content_sha1"] = hex.EncodeToString(md[:]), hex.EncodeToString(s1[:])
		attrs["content_sha512"], attrs["content_base64sha512"] = hex.EncodeToString(s512[:]), base64.StdEncoding.EncodeToString(s512[:])
	}
	b, err = json.Marshal(st)
	must(t, err)
	must(t, os.WriteFile(statePath, b, 0o600))

	for _, refresh := range []string{"-refresh=false", "-refresh=true"} {
		if code := c.exitCode("plan-upgraded.log", "plan", "-input=false", "-detailed-exitcode", "-no-color", refresh); code != 0 {
			t.Fatalf("plan %s of version 0 state exited %d; want no changes:\n%s", refresh, code, c.last)
		}
	}
	c.run("refresh.log", "apply", "-refresh-only", "-input=false", "-auto-approve", "-no-color")
	after := readState(t, statePath)
	for addr, body := range contents {
		a := stateAttrs(t, after, addr)
		for _, k := range []string{"checksums", "content_md5", "content_sha1", "content_sha512", "content_base64sha512"} {
			if a[k] != nil {
				t.Errorf("%s %s = %v after the upgrade, want null", addr, k, a[k])
			}
		}
		sum := sha256.Sum256([]byte(body))
		if a["content_sha256"] != hex.EncodeToString(sum[:]) || a["size"] != float64(len(body)) {
			t.Errorf("%s content_sha256 %v, size %v after the upgrade; want %x, %d", addr, a["content_sha256"], a["size"], sum, len(body))
		}
	}

	// Asking for MD5 afterwards: known in the plan, recorded by the apply,
	// and the file is not written again.
	file := after.attr(t, "sandbox_file.text", "absolute_path")
	ino := inodeOf(t, file)
	config(`checksums = ["md5"]`)
	md := md5.Sum([]byte("inline\n"))
	out := c.run("plan-md5.log", "plan", "-input=false", "-no-color")
	expectPlanLines(t, planBlock(t, out, "sandbox_file.text"), 30, "+ content_md5", fmt.Sprintf(`"%x"`, md))
	c.run("apply-md5.log", "apply", "-input=false", "-auto-approve", "-no-color")
	if got := readState(t, statePath).attr(t, "sandbox_file.text", "content_md5"); got != hex.EncodeToString(md[:]) {
		t.Errorf("content_md5 = %q after asking for it, want %x", got, md)
	}
	if inodeOf(t, file) != ino {
		t.Errorf("asking for content_md5 rewrote %s", file)
	}
	must(t, expectFile(file, "inline\n", 0o755))
}
