package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"encoding/json"
	"sort"
	"strings"

	"github.com/moby/moby/api/types/container"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
)

// LabelSpec is the container label holding, as JSON, what a container
// cannot otherwise give back when it is imported: its exposed ports, users,
// groups and the names of its environment variables, plain and secret
// apart (their values are in the container's configuration; the label holds
// no value) and its volume
// mounts (names and targets; a volume's driver options are never in it),
// its path grants and whether its network mode is its first network.
const LabelSpec = "sandbox.spec"

type specLabel struct {
	ExposedPorts []int       `json:"exposed_ports,omitempty"`
	Users        []string    `json:"users,omitempty"`
	Groups       []specGroup `json:"groups,omitempty"`
	Environment  []string    `json:"environment,omitempty"`
	// SecretEnvironment names the variables of Spec.SecretEnvironment
	// (names only).
	SecretEnvironment []string     `json:"secret_environment,omitempty"`
	Volumes           []specVolume `json:"volumes,omitempty"`
	// Runtime is the runtime the container was created with when one was
	// named, so that naming the daemon's default reads back as named.
	Runtime string `json:"runtime,omitempty"`
	// PrimaryNetwork says that the container's network mode is the first
	// of Spec.Networking.Networks (no NetworkMode was given).
	PrimaryNetwork bool `json:"primary_network,omitempty"`
	// Grants are Spec.Grants, descriptions included.
	Grants []posix.PathGrant `json:"extra_path_grants,omitempty"`
	// Healthcheck says that the container's health check was given at
	// creation (not inherited from the image).
	Healthcheck bool `json:"healthcheck,omitempty"`
	// WaitUntil is Spec.WaitUntil.
	WaitUntil string `json:"wait_until,omitempty"`
	// Hostname says that the container's host name was given at creation
	// (else it is Docker's default, read back as none).
	Hostname bool `json:"hostname,omitempty"`
}

type specVolume struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"read_only"`
}

type specGroup struct {
	Name  string   `json:"name"`
	Users []string `json:"users,omitempty"`
}

func specLabelOf(s Spec) string {
	l := specLabel{ExposedPorts: s.ExposedPorts, Runtime: s.Isolation.Runtime}
	for _, u := range s.Users {
		l.Users = append(l.Users, u.Name)
	}
	for _, g := range s.Groups {
		sg := specGroup{Name: g.Name}
		for _, u := range g.Users {
			sg.Users = append(sg.Users, u.Name)
		}
		l.Groups = append(l.Groups, sg)
	}
	for k := range s.Environment {
		l.Environment = append(l.Environment, k)
	}
	sort.Strings(l.Environment)
	for k := range s.SecretEnvironment {
		l.SecretEnvironment = append(l.SecretEnvironment, k)
	}
	sort.Strings(l.SecretEnvironment)
	for _, v := range s.Volumes {
		l.Volumes = append(l.Volumes, specVolume(v))
	}
	l.PrimaryNetwork = s.NetworkMode == "" && len(s.Networking.Networks) > 0
	l.Grants = s.Grants
	l.Healthcheck = s.Healthcheck != nil
	l.WaitUntil = s.WaitUntil
	l.Hostname = s.Hostname != ""
	b, _ := json.Marshal(l)
	return string(b)
}

// primaryNetwork reads LabelSpec's PrimaryNetwork of a container.
func primaryNetwork(c container.InspectResponse) bool {
	var l specLabel
	return c.Config != nil && json.Unmarshal([]byte(c.Config.Labels[LabelSpec]), &l) == nil && l.PrimaryNetwork
}

// readSpecLabel fills info from a LabelSpec value and the container's
// environment ("NAME=value" entries). A label that does not parse is
// ignored. It returns the label, for what it records that info does not
// hold (the runtime it names, and whether a health check and a host name
// were given at creation); the zero label when it does not parse.
func readSpecLabel(raw string, env []string, info *spec.DockerInfo) specLabel {
	var l specLabel
	if json.Unmarshal([]byte(raw), &l) != nil {
		return specLabel{}
	}
	info.HasSpec = true
	info.ExposedPorts = l.ExposedPorts
	info.Grants = l.Grants
	info.WaitUntil = l.WaitUntil
	for _, u := range l.Users {
		info.Users = append(info.Users, sandbox.User{Name: u})
	}
	for _, g := range l.Groups {
		grp := sandbox.Group{Name: g.Name, Users: []sandbox.User{}}
		for _, u := range g.Users {
			grp.Users = append(grp.Users, sandbox.User{Name: u})
		}
		info.Groups = append(info.Groups, grp)
	}
	for _, v := range l.Volumes {
		info.Volumes = append(info.Volumes, spec.VolumeMount(v))
	}
	values := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			values[k] = v
		}
	}
	for _, k := range l.Environment {
		if info.Environment == nil {
			info.Environment = map[string]string{}
		}
		info.Environment[k] = values[k]
	}
	return l
}
