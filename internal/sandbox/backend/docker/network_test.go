package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
)

func TestValidateNetworking(t *testing.T) {
	nw := func(name string, aliases ...string) []spec.DockerNetwork {
		return []spec.DockerNetwork{{Name: name, Aliases: aliases}}
	}
	for _, c := range []struct {
		mode  string
		n     spec.DockerNetworking
		field string // "" when valid
		want  string
	}{
		{"", spec.DockerNetworking{Networks: nw("evalnet", "agent"), ExtraHosts: map[string]string{"db": "10.0.0.5", "gw": "host-gateway"},
			DNS: []string{"10.0.0.2", "fd00::2"}}, "", ""},
		{"bridge", spec.DockerNetworking{Networks: nw("evalnet")}, "", ""},
		{"none", spec.DockerNetworking{Networks: nw("evalnet")}, "networks", `network_mode = "none" has no network`},
		{"host", spec.DockerNetworking{Networks: nw("evalnet")}, "networks", "shares another network stack"},
		{"container:abc", spec.DockerNetworking{Networks: nw("evalnet")}, "networks", "shares another network stack"},
		{"evalnet", spec.DockerNetworking{Networks: nw("evalnet")}, "networks", "already network_mode"},
		{"", spec.DockerNetworking{Networks: append(nw("a"), nw("a")...)}, "networks", "listed twice"},
		{"", spec.DockerNetworking{Networks: nw(" ")}, "networks", "must not be empty"},
		{"", spec.DockerNetworking{Networks: nw("a", "bad alias")}, "networks", "not a host name"},
		{"", spec.DockerNetworking{Networks: nw("bridge", "agent")}, "networks", "user-defined networks only"},
		{"", spec.DockerNetworking{ExtraHosts: map[string]string{"db": "10.0.0.300"}}, "extra_hosts", "expected an IP address"},
		{"", spec.DockerNetworking{ExtraHosts: map[string]string{"a:b": "10.0.0.1"}}, "extra_hosts", "not a host name"},
		{"", spec.DockerNetworking{DNS: []string{"dns.example"}}, "dns", "is not an IP address"},
	} {
		err := ValidateNetworking(c.mode, c.n)
		var fe *spec.DockerFieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%q %+v: unexpected %v", c.mode, c.n, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q %+v: got %v, want %s: ...%s...", c.mode, c.n, err, c.field, c.want)
		}
	}
}

// With no network_mode the first network is the mode and is joined at
// creation with its aliases; the others are connected afterwards.
func TestApplyNetworking(t *testing.T) {
	s := Spec{Docker: spec.Docker{Networking: spec.DockerNetworking{Networks: []spec.DockerNetwork{{Name: "a", Aliases: []string{"x"}}, {Name: "b"}},
		ExtraHosts: map[string]string{"z.internal": "10.0.0.9", "a.internal": "fd00::1"}, DNS: []string{"10.0.0.2"}}}}
	hc := &container.HostConfig{}
	nc, rest := applyNetworking(s, hc)
	if hc.NetworkMode != "a" || nc == nil || !reflect.DeepEqual(nc.EndpointsConfig["a"].Aliases, []string{"x"}) ||
		len(rest) != 1 || rest[0].Name != "b" {
		t.Errorf("mode %q, config %+v, rest %+v", hc.NetworkMode, nc, rest)
	}
	if want := []string{"a.internal:fd00::1", "z.internal:10.0.0.9"}; !reflect.DeepEqual(hc.ExtraHosts, want) {
		t.Errorf("ExtraHosts %v, want %v", hc.ExtraHosts, want)
	}
	if len(hc.DNS) != 1 || hc.DNS[0].String() != "10.0.0.2" {
		t.Errorf("DNS %v", hc.DNS)
	}
	s.NetworkMode = "bridge"
	hc = &container.HostConfig{}
	if nc, rest := applyNetworking(s, hc); nc != nil || len(rest) != 2 || hc.NetworkMode != "" {
		t.Errorf("with network_mode: config %+v, rest %+v, mode %q", nc, rest, hc.NetworkMode)
	}
}

// Read back: the network mode's own network is left out unless it came
// from the networks list; the short container id and name Docker adds to
// aliases are dropped.
func TestReadNetworking(t *testing.T) {
	id := "0123456789abcdef0123"
	c := container.InspectResponse{ID: id, Name: "/sandbox-x",
		HostConfig: &container.HostConfig{NetworkMode: "a", ExtraHosts: []string{"db:10.0.0.5", "v6:fd00::1"}},
		NetworkSettings: &container.NetworkSettings{Networks: map[string]*network.EndpointSettings{
			"b": {Aliases: []string{"y", "0123456789ab", "x"}}, "a": {Aliases: []string{"agent", "sandbox-x"}},
		}},
	}
	got := readNetworking(c, true)
	want := []spec.DockerNetwork{{Name: "a", Aliases: []string{"agent"}}, {Name: "b", Aliases: []string{"x", "y"}}}
	if !reflect.DeepEqual(got.Networks, want) || got.ExtraHosts["v6"] != "fd00::1" || got.ExtraHosts["db"] != "10.0.0.5" {
		t.Errorf("primary: got %+v", got)
	}
	if got := readNetworking(c, false); len(got.Networks) != 1 || got.Networks[0].Name != "b" {
		t.Errorf("network_mode a: got %+v", got.Networks)
	}
	c.HostConfig.NetworkMode = "default"
	c.NetworkSettings.Networks = map[string]*network.EndpointSettings{"bridge": {}}
	if got := readNetworking(c, false); got.Networks != nil {
		t.Errorf("default bridge: got %+v", got.Networks)
	}
}

func grant(t *testing.T, p string, hostPath ...string) posix.PathGrant {
	t.Helper()
	var hp *string
	if len(hostPath) > 0 {
		hp = &hostPath[0]
	}
	g, err := posix.NewPathGrant(p, false, nil, hp)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestValidateGrants(t *testing.T) {
	vols := []spec.VolumeMount{{Name: "v", Target: "/mnt/vol"}}
	tmpfs := map[string]string{"/scratch": "size=1m"}
	for _, c := range []struct {
		grants []posix.PathGrant
		index  int
		want   string // "" when valid
	}{
		{[]posix.PathGrant{grant(t, "/mnt/a", "/srv/a"), grant(t, "/opt/x"), grant(t, "/opt/x")}, 0, ""},
		{[]posix.PathGrant{grant(t, "/mnt/shared-data", "/srv"), grant(t, "/mnt/shared-data")}, 1, "duplicate Docker sandbox path grant target: /mnt/shared-data"},
		{[]posix.PathGrant{grant(t, "/mnt/shared-data"), grant(t, "/mnt/shared-data/", "/srv")}, 1, "duplicate Docker sandbox path grant target: /mnt/shared-data"},
		{[]posix.PathGrant{grant(t, "/workspace", "/srv")}, 0, "must be outside the workspace root: /workspace "},
		{[]posix.PathGrant{grant(t, "/workspace/data", "/srv")}, 0, "must be outside the workspace root: /workspace/data "},
		{[]posix.PathGrant{grant(t, "/work", "/srv")}, -1, ""}, // a prefix, not a parent
		{[]posix.PathGrant{grant(t, "/mnt/vol", "/srv")}, 0, "is the target of volume v"},
		{[]posix.PathGrant{grant(t, "/scratch", "/srv")}, 0, "also a tmpfs mount"},
		{[]posix.PathGrant{grant(t, "/.sandbox-fs-helper", "/srv")}, 0, "file helper"},
		{[]posix.PathGrant{grant(t, "/mnt/w", `C:\data`)}, 0, "must be absolute on the current host"},
	} {
		err := ValidateGrants("/workspace", c.grants, vols, tmpfs)
		var ge *spec.GrantError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: unexpected %v", c.grants, err)
		case c.want != "" && (!errors.As(err, &ge) || ge.Index != c.index || !strings.Contains(ge.Reason, c.want)):
			t.Errorf("%+v: got %v, want grant %d: ...%s...", c.grants, err, c.index, c.want)
		}
	}
	if err := ValidateGrants("/srv/ws/root", []posix.PathGrant{grant(t, "/srv", "/data")}, nil, nil); err == nil ||
		!strings.Contains(err.Error(), "must be outside the workspace root: /srv ") {
		t.Errorf("a grant containing the root: %v", err)
	}
}

// Grants come back from the label, a host_path one as Docker has its bind
// mount; bind mounts the label does not know are added.
func TestReadGrants(t *testing.T) {
	desc := "ref"
	ro := grant(t, "/data/ref", "/srv/ref")
	ro.Description = &desc
	recorded := []posix.PathGrant{ro, grant(t, "/opt/tools"), grant(t, "/gone", "/srv/gone")}
	hc := &container.HostConfig{Mounts: []mount.Mount{
		{Type: mount.TypeBind, Source: "/srv/ref", Target: "/data/ref", ReadOnly: true},
		{Type: mount.TypeVolume, Source: "v", Target: "/mnt/vol"},
		{Type: mount.TypeBind, Source: "/srv/extra", Target: "/extra"},
	}}
	got := readGrants(hc, recorded)
	if len(got) != 3 || got[0].Path != "/data/ref" || !got[0].ReadOnly || *got[0].Description != "ref" ||
		got[1].Path != "/opt/tools" || got[1].HostPath != nil || got[2].Path != "/extra" || *got[2].HostPath != "/srv/extra" {
		t.Errorf("got %+v", got)
	}
}

func TestMissingBindSource(t *testing.T) {
	grants := []posix.PathGrant{grant(t, "/a", "/srv/a"), grant(t, "/b", "/srv/b")}
	err := errors.New(`Error response from daemon: invalid mount config for type "bind": bind source path does not exist: /srv/b`)
	if m := missingBindSource(err, grants); m == nil || m.Index != 1 || m.HostPath != "/srv/b" {
		t.Errorf("got %+v", m)
	}
	if m := missingBindSource(errors.New("no such image"), grants); m != nil {
		t.Errorf("another error: %+v", m)
	}
}

// The spec label records the grants and whether the network mode is the
// first network, and reads them back.
func TestSpecLabelNetworkAndGrants(t *testing.T) {
	g := grant(t, "/data", "/srv/data")
	s := Spec{Docker: spec.Docker{Networking: spec.DockerNetworking{Networks: []spec.DockerNetwork{{Name: "a"}}}, Grants: []posix.PathGrant{g}}}
	raw := specLabelOf(s)
	c := container.InspectResponse{Config: &container.Config{Labels: map[string]string{LabelSpec: raw}}}
	var info spec.DockerInfo
	readSpecLabel(raw, nil, &info)
	if !primaryNetwork(c) || len(info.Grants) != 1 || *info.Grants[0].HostPath != "/srv/data" {
		t.Errorf("label %s: primary %v, grants %+v", raw, primaryNetwork(c), info.Grants)
	}
	s.NetworkMode = "bridge"
	c.Config.Labels[LabelSpec] = specLabelOf(s)
	if primaryNetwork(c) {
		t.Errorf("with network_mode: label %s says primary", c.Config.Labels[LabelSpec])
	}
}
