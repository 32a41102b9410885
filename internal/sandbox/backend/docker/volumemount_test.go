package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/volume"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func TestSpecValidate_volumes(t *testing.T) {
	vol := func(name, target string) spec.VolumeMount {
		return spec.VolumeMount{Name: name, Target: target, ReadOnly: true}
	}
	for name, c := range map[string]struct {
		root string
		vols []spec.VolumeMount
		want string // "" means valid
	}{
		"below the root":        {"/workspace", []spec.VolumeMount{vol("a", "/workspace/data"), vol("b", "/workspace/data/nested")}, ""},
		"outside the root":      {"/workspace", []spec.VolumeMount{vol("a", "/mnt/data")}, ""},
		"root is a prefix":      {"/workspace", []spec.VolumeMount{vol("a", "/workspace2")}, ""},
		"empty name":            {"/workspace", []spec.VolumeMount{vol("", "/workspace/data")}, "volume name must not be empty"},
		"relative target":       {"/workspace", []spec.VolumeMount{vol("a", "data")}, `target "data" must be an absolute, clean path`},
		"unclean target":        {"/workspace", []spec.VolumeMount{vol("a", "/workspace/../etc")}, "must be an absolute, clean path"},
		"trailing slash":        {"/workspace", []spec.VolumeMount{vol("a", "/workspace/data/")}, "must be an absolute, clean path"},
		"duplicate target":      {"/workspace", []spec.VolumeMount{vol("a", "/workspace/data"), vol("b", "/workspace/data")}, "already the target of volume a"},
		"the root":              {"/workspace", []spec.VolumeMount{vol("a", "/workspace")}, "is the workspace root itself"},
		"contains the root":     {"/srv/ws", []spec.VolumeMount{vol("a", "/srv")}, "contains the workspace root /srv/ws"},
		"slash":                 {"/workspace", []spec.VolumeMount{vol("a", "/")}, "contains the workspace root"},
		"helper directory":      {"/workspace", []spec.VolumeMount{vol("a", "/.sandbox-fs-helper")}, "file helper's directory"},
		"inside the helper dir": {"/workspace", []spec.VolumeMount{vol("a", "/.sandbox-fs-helper/x")}, "file helper's directory"},
	} {
		t.Run(name, func(t *testing.T) {
			err := Spec{Docker: spec.Docker{Image: "x", Root: c.root, Volumes: c.vols}}.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			var vme *spec.VolumeMountError
			if c.want != "" && (!errors.As(err, &vme) || vme.Index != len(c.vols)-1) {
				t.Fatalf("error %#v does not name mount %d", err, len(c.vols)-1)
			}
		})
	}
}

// The volumes come back from the label in order, with the rest of the
// spec, and become HostConfig mounts of type volume that never copy the
// image's files into the volume.
func TestSpecLabel_volumesRoundTrip(t *testing.T) {
	s := Spec{Docker: spec.Docker{Image: "x", Root: "/workspace", ExposedPorts: []int{8080}, Users: []sandbox.User{{Name: "agent"}}, Environment: map[string]string{"A": "1"}, Volumes: []spec.VolumeMount{
		{Name: "sandbox_bucket", Target: "/workspace/data", ReadOnly: true},
		{Name: "scratch", Target: "/mnt/scratch"},
	}}}
	var info spec.DockerInfo
	readSpecLabel(specLabelOf(s), []string{"A=1"}, &info)
	if !info.HasSpec || !reflect.DeepEqual(info.Volumes, s.Volumes) || !reflect.DeepEqual(info.ExposedPorts, s.ExposedPorts) {
		t.Fatalf("read back %+v", info)
	}
	var none spec.DockerInfo
	readSpecLabel(specLabelOf(Spec{Docker: spec.Docker{Image: "x"}}), nil, &none)
	if none.Volumes != nil {
		t.Fatalf("volumes of a spec without any: %+v", none.Volumes)
	}
	if strings.Contains(specLabelOf(Spec{Docker: spec.Docker{Image: "x"}}), "volumes") {
		t.Fatal("an empty volume list is written into the label")
	}
	_, hc := containerConfig(s)
	want := []mount.Mount{
		{Type: mount.TypeVolume, Source: "sandbox_bucket", Target: "/workspace/data", ReadOnly: true, VolumeOptions: &mount.VolumeOptions{NoCopy: true}},
		{Type: mount.TypeVolume, Source: "scratch", Target: "/mnt/scratch", VolumeOptions: &mount.VolumeOptions{NoCopy: true}},
	}
	if !reflect.DeepEqual(hc.Mounts, want) {
		t.Fatalf("mounts %+v", hc.Mounts)
	}
	if _, hc := containerConfig(Spec{Docker: spec.Docker{Image: "x"}}); hc.Mounts != nil {
		t.Fatalf("mounts without volumes: %+v", hc.Mounts)
	}
}

func TestRedact(t *testing.T) {
	opts := map[string]string{"type": "s3", "s3-secret-access-key": "wJalr/XUtnFEMI", "o": "addr=10.0.0.1,password=hunter22"}
	err := errors.New(`mount failed: data: addr=10.0.0.1,password=hunter22, key "wJalr/XUtnFEMI" (escaped wJalr%2FXUtnFEMI) type s3`)
	got := redactOptions(err, opts).Error()
	want := `mount failed: data: REDACTED, key "REDACTED" (escaped REDACTED) type s3`
	if got != want {
		t.Fatalf("redacted:\n got %q\nwant %q", got, want)
	}
	if errors.Unwrap(redactOptions(err, opts)) != nil {
		t.Fatal("the redacted error unwraps to the original message")
	}
	plain := errors.New("no such plugin")
	if !errors.Is(redactOptions(plain, opts), plain) {
		t.Fatal("an error without secrets was replaced")
	}
	if redactOptions(nil, opts) != nil {
		t.Fatal("nil error became non-nil")
	}
}

func TestSameVolume(t *testing.T) {
	v := volumeOf("data", "rclone:latest", map[string]string{"type": "s3", "s3-secret-access-key": "topsecret"})
	if err := sameVolume(v, "rclone", map[string]string{"type": "s3", "s3-secret-access-key": "topsecret"}); err != nil {
		t.Fatalf("same driver (implicit tag) and options: %v", err)
	}
	err := sameVolume(v, "rclone", map[string]string{"type": "s3", "s3-secret-access-key": "othersecret", "path": "b"})
	if err == nil || !strings.Contains(err.Error(), "(path, s3-secret-access-key differ)") ||
		strings.Contains(err.Error(), "topsecret") || strings.Contains(err.Error(), "othersecret") {
		t.Fatalf("different options: %v", err)
	}
	if err := sameVolume(v, "local", nil); err == nil || !strings.Contains(err.Error(), `already exists with driver "rclone:latest", not "local"`) {
		t.Fatalf("different driver: %v", err)
	}
}

func volumeOf(name, driver string, options map[string]string) volume.Volume {
	return volume.Volume{Name: name, Driver: driver, Options: options}
}

func TestSpecLabelSecretEnvironment(t *testing.T) {
	s := Spec{Docker: spec.Docker{Image: "x", Environment: map[string]string{"A": "1"}, SecretEnvironment: map[string]string{"K": "hush-7"}}}
	label := specLabelOf(s)
	if strings.Contains(label, "hush-7") || !strings.Contains(label, `"secret_environment":["K"]`) {
		t.Fatalf("label %s", label)
	}
	var info spec.DockerInfo
	readSpecLabel(label, []string{"A=1", "K=hush-7"}, &info)
	if len(info.Environment) != 1 || info.Environment["A"] != "1" {
		t.Errorf("environment read back: %v", info.Environment)
	}
	cfg, _ := containerConfig(s)
	if strings.Join(cfg.Env, ",") != "A=1,K=hush-7" {
		t.Errorf("container env %v", cfg.Env)
	}
	s.Environment["K"] = "2"
	if err := s.Validate(); err == nil || strings.Contains(err.Error(), "hush-7") {
		t.Errorf("Validate of a name given twice: %v", err)
	}
}
