package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"net/netip"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
)

const ownDigest = "0123456789abcdef"

// asDaemonReports is the inspect of a container created from s, as the
// daemon reports it: the create request's configuration, and its mounts
// as mount points.
func asDaemonReports(s Spec) inspected {
	s.helperDigest = ownDigest
	cfg, hc := containerConfig(s)
	cfg.Env = append(cfg.Env, "PATH=/bin") // the image's environment is merged in
	c := inspected{ID: "c0ffee", Name: "/sandbox-" + s.WorkspaceID, Config: cfg, HostConfig: hc}
	for _, m := range hc.Mounts {
		c.Mounts = append(c.Mounts, container.MountPoint{Type: m.Type, Name: m.Source, Destination: m.Target, RW: !m.ReadOnly})
	}
	return c
}

func helperAt(c *inspected) int {
	for i, m := range c.HostConfig.Mounts {
		if m.Target == fshelper.HelperDir {
			return i
		}
	}
	panic("no helper mount")
}

// A container is the provider's only when it is configured as the
// provider configures workspaces; each difference a hand-made copy with
// the provider's labels would have is refused, naming it.
func TestNotOwnReason(t *testing.T) {
	host := "/srv/data"
	spec := Spec{WorkspaceID: "4b49acc3-5106-4ecd-ab16-792facb88144", Docker: spec.Docker{Image: "busybox", Root: "/workspace", Labels: map[string]string{"team": "evals"}, Environment: map[string]string{"GREETING": "hi"}, SecretEnvironment: map[string]string{"TOKEN": "s"}, ExposedPorts: []int{8080}, Volumes: []spec.VolumeMount{{Name: "cache", Target: "/cache", ReadOnly: true}}, Grants: []posix.PathGrant{{Path: "/data", HostPath: &host, ReadOnly: true}}, Isolation: spec.DockerIsolation{ReadOnlyRootfs: true}}}
	helperVol := map[string]string{LabelHelperVolume: ownDigest}
	if why := notOwnReason(asDaemonReports(spec), nil, helperVol, true); why != "" {
		t.Fatalf("a container created by the provider is refused: %s", why)
	}
	for name, c := range map[string]struct {
		edit      func(*inspected)
		img, vol  map[string]string
		volAbsent bool
		want      string
	}{
		"labels only, no helper mount": {edit: func(c *inspected) {
			i := helperAt(c)
			c.HostConfig.Mounts = append(c.HostConfig.Mounts[:i:i], c.HostConfig.Mounts[i+1:]...)
			c.Mounts = append(c.Mounts[:i:i], c.Mounts[i+1:]...)
		}, want: "no file helper volume mounted"},
		"helper volume mounted read-write": {edit: func(c *inspected) {
			c.HostConfig.Mounts[helperAt(c)].ReadOnly = false
		}, want: "not the provider's read-only file helper volume"},
		"helper volume not made by the provider": {vol: map[string]string{}, want: "was not made by the provider"},
		"helper volume missing":                  {volAbsent: true, want: "missing"},
		"helper volume under another name": {edit: func(c *inspected) {
			c.HostConfig.Mounts[helperAt(c)].Source = "my-helper"
		}, want: "not the provider's read-only file helper volume"},
		"label inherited from a committed image": {img: map[string]string{LabelWorkspaceID: spec.WorkspaceID}, want: "inherited from its image"},
		"workspace id not a UUID":                {edit: func(c *inspected) { c.Config.Labels[LabelWorkspaceID] = "my-ws" }, want: "not a workspace UUID"},
		"spec label missing":                     {edit: func(c *inspected) { delete(c.Config.Labels, LabelSpec) }, want: "does not parse"},
		"an extra volume": {edit: func(c *inspected) {
			c.HostConfig.Mounts = append(c.HostConfig.Mounts, mount.Mount{Type: mount.TypeVolume, Source: "other", Target: "/other"})
		}, want: "volume other at /other"},
		"a recorded volume missing": {edit: func(c *inspected) { c.HostConfig.Mounts = c.HostConfig.Mounts[1:] }, want: "lacks a volume"},
		"a -v bind":                 {edit: func(c *inspected) { c.HostConfig.Binds = []string{"/:/host"} }, want: "binds"},
		"another port published": {edit: func(c *inspected) {
			p, _ := network.ParsePort("22/tcp")
			c.HostConfig.PortBindings[p] = []network.PortBinding{{HostIP: netip.MustParseAddr("127.0.0.1")}}
		}, want: "published ports"},
		"a port on every interface": {edit: func(c *inspected) {
			for p := range c.HostConfig.PortBindings {
				c.HostConfig.PortBindings[p] = []network.PortBinding{{HostIP: netip.MustParseAddr("0.0.0.0")}}
			}
		}, want: "127.0.0.1 only"},
		"a recorded variable unset": {edit: func(c *inspected) { c.Config.Env = []string{"PATH=/bin"} }, want: "environment variable"},
	} {
		t.Run(name, func(t *testing.T) {
			in := asDaemonReports(spec)
			if c.edit != nil {
				c.edit(&in)
			}
			vol := helperVol
			if c.vol != nil {
				vol = c.vol
			}
			got := notOwnReason(in, c.img, vol, !c.volAbsent)
			if got == "" || !strings.Contains(got, c.want) {
				t.Fatalf("reason %q, want one saying %q", got, c.want)
			}
		})
	}
	if m, ok := helperMountOf(asDaemonReports(spec).HostConfig); !ok || m.Target != fshelper.HelperDir || m.Source != HelperVolumePrefix+ownDigest {
		t.Fatalf("helper mount %+v", m)
	}
}

// Of several containers that pass for one workspace, only the one named
// after it is listed; with none so named, none is.
func TestSingleByUUID(t *testing.T) {
	u := "4b49acc3-5106-4ecd-ab16-792facb88144"
	ws := Listed{UUID: u, ContainerID: "a", Name: "sandbox-" + u}
	cp := Listed{UUID: u, ContainerID: "b", Name: "copy"}
	out, refused := singleByUUID([]Listed{cp, ws})
	if len(out) != 1 || out[0].ContainerID != "a" || len(refused) != 1 || refused[0].ContainerID != "b" {
		t.Fatalf("listed %v, refused %v", out, refused)
	}
	out, refused = singleByUUID([]Listed{cp, {UUID: u, ContainerID: "c", Name: "copy2"}})
	if len(out) != 0 || len(refused) != 2 {
		t.Fatalf("listed %v, refused %v", out, refused)
	}
}
