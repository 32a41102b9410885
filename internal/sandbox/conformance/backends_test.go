package conformance

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"strings"

	"github.com/moby/moby/api/types/network"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// dockerBackendInput is every input shape of the backend_docker vectors:
// the Python SDK's DockerSandboxClient options and manifest, and for port
// resolution the container's published ports and the port to resolve.
type dockerBackendInput struct {
	Image        string            `json:"image"`
	ExposedPorts []int             `json:"exposed_ports"`
	NetworkMode  string            `json:"network_mode"`
	Labels       map[string]string `json:"labels"`
	Manifest     json.RawMessage   `json:"manifest"`
	Published    map[string][]struct {
		HostIP   string `json:"HostIp"`
		HostPort string `json:"HostPort"`
	} `json:"NetworkSettings.Ports"`
	Port *int `json:"port"`
}

// decodeVectorManifest reads a vector's manifest (nil for a missing or
// null one); a host_path of "<dir>" stands for an existing directory.
func decodeVectorManifest(raw json.RawMessage) (*manifest.Manifest, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dir, _ := json.Marshal(os.TempDir())
	return manifest.Parse(bytes.ReplaceAll(raw, []byte(`"<dir>"`), dir))
}

// inContainerMount returns the key of the first mount entry of es with an
// in_container strategy, or "".
func inContainerMount(es manifest.Entries) (string, error) {
	found := ""
	err := es.IterEntries(func(rel string, e *manifest.Entry) error {
		if _, isMount := e.Field("mount_strategy"); !isMount || found != "" {
			return nil
		}
		b, err := e.JSON()
		if err != nil {
			return err
		}
		st, err := jsonPath(b, "mount_strategy", "type")
		if err == nil && string(st) == `"in_container"` {
			found = rel
		}
		return err
	})
	return found, err
}

// handleDockerBackendVector runs the Docker backend (design/sdk-model.md
// §6.2) for a vector: the path grant checks, the container's creation
// arguments (rendered as the Python SDK's docker-py keyword arguments) and
// the resolution of a published port.
func handleDockerBackendVector(_ string, input json.RawMessage, expected any) (any, error) {
	var in dockerBackendInput
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	if in.Port != nil {
		published := network.PortMap{}
		for k, binds := range in.Published {
			port, err := network.ParsePort(k)
			if err != nil {
				return nil, err
			}
			for _, b := range binds {
				addr, _ := netip.ParseAddr(b.HostIP)
				published[port] = append(published[port], network.PortBinding{HostIP: addr, HostPort: b.HostPort})
			}
		}
		eps, err := docker.PublishedEndpoints(published, []int{*in.Port})
		if err != nil {
			return nil, err
		}
		return map[string]any{"host": eps[0].Host, "port": eps[0].Port, "tls": eps[0].TLS}, nil
	}
	exp, _ := expected.(map[string]any)
	if _, ok := exp["pull"]; ok {
		return nil, unsupported("the engine hands the whole image reference to the daemon's pull API, which splits " +
			"registry, repository and tag itself; there is no repository/tag split to compare")
	}
	m, err := decodeVectorManifest(in.Manifest)
	if err != nil {
		return nil, err
	}
	spec := docker.Spec{Docker: spec.Docker{Image: in.Image, ExposedPorts: in.ExposedPorts, NetworkMode: in.NetworkMode, Labels: in.Labels, Root: workspace.DefaultDockerRoot}}
	if m != nil {
		spec.Root = m.Root
		spec.Grants = m.ExtraPathGrants
		if key, err := inContainerMount(m.Entries); err != nil || key != "" {
			if err != nil {
				return nil, err
			}
			return nil, unsupported("entry %q is an in-container mount: the engine does not derive the FUSE grant "+
				"(/dev/fuse, SYS_ADMIN, apparmor:unconfined) from the manifest; it is the workspace's fuse "+
				"setting, and a mount on a workspace without it is refused", key)
		}
	}
	if err := workspace.CheckDockerGrants(spec.Root, spec.Grants, nil, nil); err != nil {
		return nil, err
	}
	if err := spec.Validate(); err != nil && spec.Image != "" {
		return nil, err
	}
	return dockerCreateKwargs(spec, m != nil, exp)
}

// dockerCreateKwargs renders the engine's container configuration for spec
// as the docker-py keyword arguments the Python SDK passes to
// containers.create, limited to the ones the vector names.
func dockerCreateKwargs(spec docker.Spec, withManifest bool, exp map[string]any) (any, error) {
	cfg, hc := docker.ContainerConfig(spec)
	all := map[string]any{
		"image":      cfg.Image,
		"entrypoint": cfg.Entrypoint,
		"command":    cfg.Cmd,
		// docker-py's detach=True: no standard stream is attached.
		"detach": !cfg.AttachStdin && !cfg.AttachStdout && !cfg.AttachStderr && !cfg.Tty,
	}
	env := map[string]string{}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	if len(env) > 0 || withManifest {
		all["environment"] = env
	} else {
		all["environment"] = nil // the Python SDK passes None without a manifest
	}
	labels := map[string]string{}
	for k, v := range cfg.Labels {
		switch k {
		case docker.LabelWorkspaceID, docker.LabelRoot, docker.LabelSpec:
			// The provider's own bookkeeping labels.
		default:
			labels[k] = v
		}
	}
	if len(labels) > 0 {
		all["labels"] = labels
	}
	if len(hc.PortBindings) > 0 {
		ports := map[string]any{}
		for p, binds := range hc.PortBindings {
			for _, b := range binds {
				var ip, hp any
				if b.HostIP.IsValid() {
					ip = b.HostIP.String()
				}
				if b.HostPort != "" {
					hp = b.HostPort
				}
				ports[p.String()] = []any{ip, hp}
			}
		}
		all["ports"] = ports
	}
	if len(hc.Devices) > 0 {
		var devs []string
		for _, d := range hc.Devices {
			devs = append(devs, d.PathOnHost)
		}
		all["devices"] = devs
	}
	if len(hc.CapAdd) > 0 {
		all["cap_add"] = hc.CapAdd
	}
	if len(hc.SecurityOpt) > 0 {
		all["security_opt"] = hc.SecurityOpt
	}
	var mounts []map[string]any
	for _, mt := range hc.Mounts {
		mounts = append(mounts, map[string]any{"Target": mt.Target, "Source": mt.Source, "Type": string(mt.Type), "ReadOnly": mt.ReadOnly})
	}
	if mounts != nil {
		all["mounts"] = mounts
	}
	if exp == nil {
		return all, nil
	}
	got := map[string]any{}
	for k := range exp {
		if v, ok := all[k]; ok {
			got[k] = v
		} else if k != "labels" && k != "ports" && k != "mounts" { // omitted when empty, as docker-py's callers do
			return nil, unsupported("the engine's container configuration has nothing for the keyword %q", k)
		}
	}
	return got, nil
}

// handleUnixLocalBackendVector runs the local workspace kind's checks for
// a vector (design/sdk-model.md §6.3).
func handleUnixLocalBackendVector(_ string, input json.RawMessage, expected any) (any, error) {
	var in struct {
		Manifest     json.RawMessage `json:"manifest"`
		ExposedPorts []int           `json:"exposed_ports"`
		Resolve      *int            `json:"resolve"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	if in.Resolve != nil {
		return nil, unsupported("a local workspace declares no exposed ports: every port resolves to 127.0.0.1:<port>, " +
			"so there is no exposed_ports state to de-duplicate and no undeclared port to refuse")
	}
	m, err := decodeVectorManifest(in.Manifest)
	if err != nil || m == nil {
		return nil, err
	}
	err = workspace.CheckLocalGrants(m.ExtraPathGrants)
	var ge *spec.GrantError
	exp, _ := expected.(map[string]any)
	want, _ := exp["message"].(string)
	if !errors.As(err, &ge) || want == "" {
		return nil, err
	}
	// The provider words this refusal for Terraform users (a local workspace,
	// not the Python SDK's client classes); compare what it refuses.
	for _, g := range m.ExtraPathGrants {
		if g.HostPath != nil && (ge.Field != "host_path" || !strings.Contains(ge.Reason, "'"+g.Path+"'") ||
			!strings.Contains(want, "'"+g.Path+"'")) {
			return nil, err
		}
	}
	return partialResult{Err: err, Skipped: map[string]string{
		"message": "worded for Terraform users, naming the same grant path: " + ge.Reason,
	}}, nil
}
