package mount_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// fakeSession records commands and writes; fail makes matching commands
// exit 1.
type fakeSession struct {
	execs  [][]string
	writes map[string]string
	files  map[string]string
	reads  []string
	fail   func(argv []string) bool
}

func (s *fakeSession) Root() string { return "/workspace" }

func (s *fakeSession) Exec(_ context.Context, argv []string) (mount.ExecResult, error) {
	s.execs = append(s.execs, argv)
	if s.fail != nil && s.fail(argv) {
		return mount.ExecResult{ExitCode: 1, Stderr: []byte("boom")}, nil
	}
	return mount.ExecResult{}, nil
}

func (s *fakeSession) WriteFile(_ context.Context, rel string, content []byte) error {
	if s.writes == nil {
		s.writes = map[string]string{}
	}
	s.writes[rel] = string(content)
	return nil
}

func (s *fakeSession) ReadFile(_ context.Context, path string) ([]byte, error) {
	s.reads = append(s.reads, path)
	if c, ok := s.files[path]; ok {
		return []byte(c), nil
	}
	return nil, errors.New("not found")
}

const protectedMessage = "sandbox operation failed while using a protected mount configuration"

func sh(cmd string) []string { return []string{"sh", "-lc", cmd} }

func TestUnapply(t *testing.T) {
	conf := "/workspace/.sandbox-rclone-config/" + testHex + "/sandbox_s3_" + testHex + ".conf"
	mp := mount.DefaultFusePattern()
	mpCache := mp
	mpCache.CachePath = sp("cache/blob")
	envBase := "/workspace/.sandbox-mountpoint-env/" + testHex + "/" + mount.MountpointCommandHash("b", "/workspace/data")
	tests := []struct {
		name string
		m    *mount.Mount
		path string
		want [][]string
	}{
		{"rclone fuse", &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"}, Strategy: inContainer("rclone")},
			"/workspace/data", [][]string{
				sh("fusermount3 -u /workspace/data || umount /workspace/data"),
				sh("pkill -f -- 'rclone (mount|serve nfs) sandbox_s3_" + testHex + ":' >/dev/null 2>&1 || true"),
				{"rm", "-rf", "--", conf},
			}},
		{"rclone nfs with a quoted path and remote name", &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"},
			Strategy: mount.Strategy{Type: mount.StrategyInContainer, Pattern: &mount.Pattern{Type: "rclone",
				Rclone: &mount.RclonePattern{Mode: "nfs", RemoteName: sp("my remote")}}}},
			"data dir", [][]string{
				sh("umount '/workspace/data dir' >/dev/null 2>&1 || true"),
				sh("pkill -f -- 'rclone (mount|serve nfs) my remote:' >/dev/null 2>&1 || true"),
				{"rm", "-rf", "--", "/workspace/.sandbox-rclone-config/" + testHex + "/my remote.conf"},
			}},
		{"rclone mounted over the root keeps its config", &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"},
			Strategy: inContainer("rclone")}, "/workspace", [][]string{
			sh("fusermount3 -u /workspace || umount /workspace"),
			sh("pkill -f -- 'rclone (mount|serve nfs) sandbox_s3_" + testHex + ":' >/dev/null 2>&1 || true"),
		}},
		{"mountpoint without credentials", &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"},
			Strategy: inContainer("mountpoint")}, "/workspace/data", [][]string{
			sh("fusermount3 -u /workspace/data || umount /workspace/data"),
		}},
		{"mountpoint with credentials", &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b", AccessKeyID: sp("a"),
			SecretAccessKey: sp("s")}, Strategy: inContainer("mountpoint")}, "/workspace/data", [][]string{
			sh("fusermount3 -u /workspace/data || umount /workspace/data"),
			{"rm", "-rf", "--", envBase + ".env", envBase + ".stdout", envBase + ".stderr"},
		}},
		{"fuse default cache", &mount.Mount{Type: mount.TypeAzureBlob, AzureBlob: &mount.AzureBlob{Account: "a", Container: "c"},
			Strategy: mount.Strategy{Type: mount.StrategyInContainer, Pattern: &mount.Pattern{Type: "fuse", Fuse: &mp}}},
			"/workspace/data", [][]string{
				sh("fusermount3 -u /workspace/data || umount /workspace/data"),
				{"rm", "-rf", "--", "/workspace/.sandbox-blobfuse-cache/" + testHex + "/a/c",
					"/workspace/.sandbox-blobfuse-config/" + testHex + "/a_c.yaml"},
			}},
		{"fuse own cache path is kept", &mount.Mount{Type: mount.TypeAzureBlob, AzureBlob: &mount.AzureBlob{Account: "a", Container: "c"},
			Strategy: mount.Strategy{Type: mount.StrategyInContainer, Pattern: &mount.Pattern{Type: "fuse", Fuse: &mpCache}}},
			"/workspace/data", [][]string{
				sh("fusermount3 -u /workspace/data || umount /workspace/data"),
				{"rm", "-rf", "--", "/workspace/.sandbox-blobfuse-config/" + testHex + "/a_c.yaml"},
			}},
		{"s3files", &mount.Mount{Type: mount.TypeS3Files, S3Files: &mount.S3Files{FileSystemID: "fs"},
			Strategy: mount.Strategy{Type: mount.StrategyInContainer, Pattern: &mount.Pattern{Type: "s3files"}}},
			"/workspace/data", [][]string{sh("umount /workspace/data || true")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &fakeSession{}
			if err := mount.Unapply(context.Background(), s, tt.m, tt.path, testSession); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.execs, tt.want) {
				t.Errorf("got  %q\nwant %q", s.execs, tt.want)
			}
		})
	}
}

func TestApplyRecordsGeneratedFiles(t *testing.T) {
	s := &fakeSession{}
	m := &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"}, Strategy: inContainer("rclone")}
	got, err := mount.Apply(context.Background(), s, m, "data", testSession)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := mount.GeneratedPaths(m, "/workspace", "data", testSession)
	if !reflect.DeepEqual(got.GeneratedPaths, want) || got.RemoteName != "sandbox_s3_"+testHex {
		t.Errorf("applied %+v, generated paths want %v", got, want)
	}
	if last := s.execs[len(s.execs)-1]; last[0] != "rclone" || last[3] != "/workspace/data" {
		t.Errorf("mount command %q", last)
	}
}

func TestApplyReadsRcloneConfigFile(t *testing.T) {
	s := &fakeSession{files: map[string]string{"/workspace/conf/rclone.conf": "[r]\nprovider = Other\n"}}
	m := &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"}, Strategy: mount.Strategy{Type: mount.StrategyInContainer,
		Pattern: &mount.Pattern{Type: "rclone", Rclone: &mount.RclonePattern{RemoteName: sp("r"), ConfigFilePath: sp("conf/rclone.conf")}}}}
	if _, err := mount.Apply(context.Background(), s, m, "/workspace/data", testSession); err != nil {
		t.Fatal(err)
	}
	want := "[r]\nprovider = Other\ntype = s3\nprovider = AWS\nenv_auth = false\n"
	if got := s.writes[".sandbox-rclone-config/"+testHex+"/r.conf"]; got != want {
		t.Errorf("config %q, want %q", got, want)
	}
	m.Strategy.Pattern.Rclone.ConfigFilePath = sp("/etc/missing.conf")
	_, err := mount.Apply(context.Background(), &fakeSession{}, m, "/workspace/data", testSession)
	// A config_file_path is credential authority: the Python SDK's error is replaced.
	wantConfigError(t, err, "sandbox mount configuration is invalid", map[string]any{})
}

func TestApplyProtectsErrorsOfMountsWithCredentials(t *testing.T) {
	noTool := func(argv []string) bool { return strings.Contains(strings.Join(argv, " "), "command -v") }
	plain := &mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b", AccountID: "a"}, Strategy: inContainer("rclone")}
	_, err := mount.Apply(context.Background(), &fakeSession{fail: noTool}, plain, "/workspace/d", testSession)
	var se *sandbox.Error
	if !errors.As(err, &se) || se.Code != sandbox.CodeMountMissingTool || se.Message != "required mount tool missing: rclone" ||
		!reflect.DeepEqual(se.Context, map[string]any{"tool": "rclone", "type": mount.TypeR2}) {
		t.Fatalf("plain mount error: %#v", err)
	}
	secret := &mount.Mount{Type: mount.TypeR2, R2: &mount.R2{Bucket: "b", AccountID: "a", AccessKeyID: sp("AK"),
		SecretAccessKey: sp("SK")}, Strategy: inContainer("rclone")}
	_, err = mount.Apply(context.Background(), &fakeSession{fail: noTool}, secret, "/workspace/d", testSession)
	// A missing tool is named even with credentials: the message holds no value.
	if !errors.As(err, &se) || se.Code != sandbox.CodeMountMissingTool || se.Message != "required mount tool missing: rclone" {
		t.Fatalf("missing tool with credentials: %#v", err)
	}
	mountFails := func(argv []string) bool { return argv[0] == "rclone" }
	_, err = mount.Apply(context.Background(), &fakeSession{fail: mountFails}, secret, "/workspace/d", testSession)
	if !errors.As(err, &se) || se.Code != sandbox.CodeMountFailed || se.Message != protectedMessage {
		t.Fatalf("protected command error: %#v", err)
	}
	_, err = mount.Apply(context.Background(), &fakeSession{}, &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b"},
		Strategy: docker("rclone")}, "/workspace/d", testSession)
	wantConfigError(t, err, "docker-volume mounts are not supported by this sandbox backend", nil)
}

func TestApplyMountpointSensitiveEndpoint(t *testing.T) {
	s := &fakeSession{}
	m := &mount.Mount{Type: mount.TypeS3, S3: &mount.S3{Bucket: "b", Endpoint: sp("https://u:p@s3.example.test")},
		ReadOnly: false, Strategy: inContainer("mountpoint")}
	got, err := mount.Apply(context.Background(), s, m, "/workspace/d", testSession)
	if err != nil {
		t.Fatal(err)
	}
	h := mount.MountpointCommandHash("b", "/workspace/d")
	dir := "/workspace/.sandbox-mountpoint-env/" + testHex + "/"
	wantCmd := ". " + dir + h + ".env && exec mount-s3 --no-sign-request --allow-overwrite --allow-delete " +
		`--endpoint-url "${OPENAI_AGENTS_MOUNT_ENDPOINT_URL}" b /workspace/d >` + dir + h + ".stdout 2>" + dir + h + ".stderr"
	if last := s.execs[len(s.execs)-1]; !reflect.DeepEqual(last, sh(wantCmd)) {
		t.Errorf("command %q\nwant    %q", last[2], wantCmd)
	}
	if env := s.writes[".sandbox-mountpoint-env/"+testHex+"/"+h+".env"]; env != "export OPENAI_AGENTS_MOUNT_ENDPOINT_URL=https://u:p@s3.example.test\n" {
		t.Errorf("env file %q", env)
	}
	if len(got.GeneratedPaths) != 3 || !reflect.DeepEqual(got.PersistSkipPaths, []string{".sandbox-mountpoint-env/" + testHex}) {
		t.Errorf("applied %+v", got)
	}
}

func TestApplyRcloneNFSOptions(t *testing.T) {
	s := &fakeSession{fail: func(argv []string) bool {
		return argv[2] == "command -v timeout >/dev/null 2>&1" || argv[2] == "grep -w nfs /proc/filesystems"
	}}
	p := &mount.RclonePattern{Mode: "nfs", RemoteName: sp("r"), NFSAddr: sp("0.0.0.0:3049"), NFSMountOptions: []string{"vers=3", "nolock"}}
	rt := mount.RcloneRuntime{RemoteName: "r", RemotePath: "b", MountType: mount.TypeS3, ReadOnly: true}
	got, err := mount.ApplyRclone(context.Background(), s, p, rt, "/workspace/m", testSession)
	if err != nil {
		t.Fatal(err)
	}
	conf := "/workspace/.sandbox-rclone-config/" + testHex + "/r.conf"
	if server := s.execs[5]; server[2] != "rclone serve nfs r:b --addr 0.0.0.0:3049 --config "+conf+" --read-only &" {
		t.Errorf("server %q", server[2])
	}
	if last := s.execs[len(s.execs)-1]; last[2] != "for i in 1 2 3; do mount -v -t nfs -o vers=3,nolock 127.0.0.1:/ /workspace/m && exit 0; sleep 1; done; exit 1" {
		t.Errorf("client %q", last[2])
	}
	if len(got.Warnings) != 1 {
		t.Errorf("warnings %q", got.Warnings)
	}
}

func TestS3FilesOptionString(t *testing.T) {
	rt := mount.S3FilesRuntime{FileSystemID: "fs", ExtraOptions: []mount.Option{{Key: "region", Value: sp("x")},
		{Key: "iam"}}, Region: sp("us-east-1"), ReadOnly: false}
	if got := mount.S3FilesOptionString(rt); got != "region=us-east-1,iam" {
		t.Errorf("options %q", got)
	}
	if got := mount.S3FilesArgv(mount.S3FilesRuntime{FileSystemID: "fs", Subpath: sp("")}, "/m"); !reflect.DeepEqual(got,
		[]string{"mount", "-t", "s3files", "fs", "/m"}) {
		t.Errorf("argv %q", got)
	}
}

func TestRenderShellExports(t *testing.T) {
	got := mount.RenderShellExports([][2]string{{"A", "plain"}, {"B", "it's $x"}, {"C", ""}})
	if want := "export A=plain\nexport B='it'\"'\"'s $x'\nexport C=''\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
