package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"
)

func TestParseAndFormatSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		back string
	}{
		{"64m", 64 << 20, "64m"}, {"64M", 64 << 20, "64m"}, {"1g", 1 << 30, "1g"}, {"1024m", 1 << 30, "1g"},
		{"512k", 512 << 10, "512k"}, {"1.5g", 3 << 29, "1536m"}, {"100", 100, "100"}, {"2t", 2 << 40, "2t"},
		{"10mb", 10 << 20, "10m"},
	} {
		got, err := spec.ParseDockerSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("spec.ParseDockerSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if b := spec.FormatDockerSize(got); b != tc.back {
			t.Errorf("spec.FormatDockerSize(%d) = %q, want %q", got, b, tc.back)
		}
	}
	for _, bad := range []string{"", "m", "-1m", "64x", "one"} {
		if _, err := spec.ParseDockerSize(bad); err == nil {
			t.Errorf("spec.ParseDockerSize(%q) accepted", bad)
		}
	}
}

func TestParseUlimit(t *testing.T) {
	if u, err := spec.ParseDockerUlimit("nofile", "1024:2048"); err != nil || u != (spec.DockerUlimit{Soft: 1024, Hard: 2048}) || u.String() != "1024:2048" {
		t.Errorf("nofile 1024:2048 = %v, %v", u, err)
	}
	if u, err := spec.ParseDockerUlimit("nproc", "64"); err != nil || u != (spec.DockerUlimit{Soft: 64, Hard: 64}) {
		t.Errorf("nproc 64 = %v, %v", u, err)
	}
	for _, bad := range [][2]string{{"nofile", "2048:1024"}, {"nosuch", "1"}, {"nofile", "x"}} {
		if _, err := spec.ParseDockerUlimit(bad[0], bad[1]); err == nil {
			t.Errorf("spec.ParseDockerUlimit(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func TestCaps(t *testing.T) {
	for _, tc := range []struct {
		add, drop []string
		fuse      bool
		hcAdd     []string
		hcDrop    []string
		canonAdd  []string
		canonDrop []string
	}{
		{nil, nil, false, spec.DockerBaselineCaps, []string{"ALL"}, nil, nil},
		{[]string{"NET_RAW", "CHOWN"}, []string{"FOWNER"}, false, []string{"CHOWN", "DAC_OVERRIDE", "NET_RAW"}, []string{"ALL"}, []string{"NET_RAW"}, []string{"FOWNER"}},
		{nil, nil, true, []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "SYS_ADMIN"}, []string{"ALL"}, nil, nil},
		{[]string{"SETUID"}, []string{"ALL"}, false, []string{"SETUID"}, []string{"ALL"}, []string{"SETUID"}, spec.DockerBaselineCaps},
		{[]string{"ALL"}, []string{"NET_RAW"}, false, []string{"ALL"}, []string{"NET_RAW"}, []string{"ALL"}, []string{"NET_RAW"}},
		// Adding and dropping the same capability keeps it.
		{[]string{"CHOWN"}, []string{"CHOWN"}, false, spec.DockerBaselineCaps, []string{"ALL"}, nil, nil},
	} {
		a, d := spec.DockerHostCaps(tc.add, tc.drop, tc.fuse)
		if !slices.Equal(a, tc.hcAdd) || !slices.Equal(d, tc.hcDrop) {
			t.Errorf("spec.DockerHostCaps(%v, %v, %v) = %v, %v; want %v, %v", tc.add, tc.drop, tc.fuse, a, d, tc.hcAdd, tc.hcDrop)
		}
		ca, cd := spec.CanonicalDockerCaps(tc.add, tc.drop, tc.fuse)
		if !slices.Equal(ca, tc.canonAdd) || !slices.Equal(cd, tc.canonDrop) {
			t.Errorf("spec.CanonicalDockerCaps(%v, %v) = %v, %v; want %v, %v", tc.add, tc.drop, ca, cd, tc.canonAdd, tc.canonDrop)
		}
	}
	// A container created with Docker's default capabilities reads back
	// as the capabilities it has beyond the baseline.
	add, drop := spec.ReadDockerCaps(nil, nil, false)
	if !slices.Contains(add, "NET_RAW") || !slices.Contains(add, "SETUID") || drop != nil {
		t.Errorf("default container reads back as add %v drop %v", add, drop)
	}
	if _, err := spec.NormalizeDockerCap("cap_net_raw"); err != nil {
		t.Error(err)
	}
	if _, err := spec.NormalizeDockerCap("NOPE"); err == nil {
		t.Error("NOPE accepted")
	}
}

// What applyIsolation sets on a container, readIsolation reads back.
func TestIsolationRoundTrip(t *testing.T) {
	iso := spec.DockerIsolation{
		Memory: 64 << 20, NanoCPUs: 5e8, PidsLimit: 64, Disk: 32 << 20, ShmSize: 128 << 20,
		Tmpfs: map[string]string{"/tmp": "size=16m"}, Ulimits: map[string]spec.DockerUlimit{"nofile": {Soft: 1024, Hard: 2048}},
		NoNewPrivileges: true, CapAdd: []string{"NET_RAW"}, CapDrop: []string{"FOWNER"}, ReadOnlyRootfs: true,
		SecurityOpt: []string{"label=disable"}, Init: true, User: "1000:1000", Runtime: "runsc",
	}
	s := Spec{Docker: spec.Docker{Root: "/workspace", Isolation: iso, FUSE: true}}
	cfg, hc := &container.Config{}, &container.HostConfig{SecurityOpt: []string{"apparmor:unconfined"}}
	applyIsolation(s, cfg, hc)
	if hc.MemorySwap != hc.Memory {
		t.Errorf("MemorySwap %d, want %d (no swap)", hc.MemorySwap, hc.Memory)
	}
	if !strings.Contains(hc.Tmpfs["/workspace"], "exec") || !strings.Contains(hc.Tmpfs["/workspace"], "size=33554432") {
		t.Errorf("root tmpfs %q", hc.Tmpfs["/workspace"])
	}
	// Read-only: /tmp has a tmpfs, the root the disk tmpfs; only the
	// helper's digest cache needs a volume (the helper itself is on a
	// read-only volume of its own).
	if len(hc.Mounts) != 1 || hc.Mounts[0].Target != "/.sandbox-fs-digests" {
		t.Errorf("mounts %+v", hc.Mounts)
	}
	got := readIsolation(cfg, hc, "/workspace", "runc", "runsc", true)
	want := iso
	want.CapAdd, want.CapDrop = []string{"NET_RAW"}, []string{"FOWNER"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n %+v\nwant\n %+v", got, want)
	}
}

func TestIsolationValidate(t *testing.T) {
	for _, tc := range []struct {
		iso      spec.DockerIsolation
		accounts bool
		field    string
	}{
		{spec.DockerIsolation{Memory: 1 << 20}, false, "memory"},
		{spec.DockerIsolation{MemorySwap: 64 << 20}, false, "memory_swap"},
		{spec.DockerIsolation{Memory: 64 << 20, MemorySwap: 32 << 20}, false, "memory_swap"},
		{spec.DockerIsolation{Disk: 1 << 10}, false, "disk"},
		{spec.DockerIsolation{ReadOnlyRootfs: true}, true, "read_only_rootfs"},
		{spec.DockerIsolation{Tmpfs: map[string]string{"tmp": ""}}, false, "tmpfs"},
		{spec.DockerIsolation{Disk: 32 << 20, Tmpfs: map[string]string{"/workspace": ""}}, false, "tmpfs"},
		{spec.DockerIsolation{Tmpfs: map[string]string{"/.sandbox-fs-helper": ""}}, false, "tmpfs"},
		{spec.DockerIsolation{CapDrop: []string{"NOPE"}}, false, "cap_drop"},
		{spec.DockerIsolation{Memory: 64 << 20, MemorySwap: -1}, false, ""},
		{spec.DockerIsolation{PidsLimit: MinPidsLimit - 1}, false, "pids_limit"},
		{spec.DockerIsolation{PidsLimit: MinPidsLimit}, false, ""},
	} {
		err := ValidateIsolation(tc.iso, "/workspace", nil, tc.accounts)
		var fe *spec.DockerFieldError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v", tc.iso, err)
		case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
			t.Errorf("%+v: got %v, want an error on %s", tc.iso, err, tc.field)
		}
	}
}

// The daemon's default runtime reads back as named when the container's
// LabelSpec names it, and as "" when nothing named a runtime.
func TestIsolationDefaultRuntime(t *testing.T) {
	for _, tc := range []struct{ named, running, want string }{
		{"runc", "runc", "runc"},
		{"", "runc", ""},
		{"", "runsc", "runsc"},
		{"runsc", "runsc", "runsc"},
	} {
		var info spec.DockerInfo
		l := readSpecLabel(specLabelOf(Spec{Docker: spec.Docker{Isolation: spec.DockerIsolation{Runtime: tc.named}}}), nil, &info)
		got := readIsolation(nil, &container.HostConfig{Runtime: tc.running}, "/workspace", "runc", l.Runtime, false)
		if got.Runtime != tc.want {
			t.Errorf("named %q, running %q: read back %q, want %q", tc.named, tc.running, got.Runtime, tc.want)
		}
	}
}
