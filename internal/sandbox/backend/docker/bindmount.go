package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
)

// ValidateGrants checks the path grants of a container workspace whose
// root is root, as the Python SDK does before it creates the container
// (design/sdk-model.md §6.2): a target may be granted twice only when no
// grant of it has a host_path; a grant with a host_path, which becomes a
// bind mount, must be absolute on this host, lie outside the root (neither
// the root, inside it nor containing it) and not be the target of a
// volume. It must also keep clear of the file helper's directory and of
// the tmpfs mounts. The first problem is a *GrantError. Grants are built
// with posix.NewPathGrant, so their paths are normalised.
func ValidateGrants(root string, grants []posix.PathGrant, vols []spec.VolumeMount, tmpfs map[string]string) error {
	seen, bound := map[string]bool{}, map[string]bool{}
	for i, g := range grants {
		fail := func(field, format string, args ...any) error {
			return &spec.GrantError{Index: i, Field: field, Reason: fmt.Sprintf(format, args...)}
		}
		t := g.Path
		if seen[t] && (g.HostPath != nil || bound[t]) {
			return fail("path", "duplicate Docker sandbox path grant target: %s", t)
		}
		seen[t] = true
		if g.HostPath == nil {
			continue
		}
		bound[t] = true
		if _, err := g.LexicalHostRoot(); err != nil {
			return fail("host_path", "%s", err.Error())
		}
		_, isTmpfs := tmpfs[t]
		switch {
		case root != "" && (t == root || within(t, root) || within(root, t)):
			return fail("path", "Docker sandbox path grant host_path target must be outside the workspace root: %s "+
				"(the root is %s); give the grant a path outside it, or copy the directory in with sandbox_local_dir", t, root)
		case volumeAt(vols, t) != "":
			return fail("path", "Docker sandbox path grant target conflicts with a mount: %s is the target of volume %s", t, volumeAt(vols, t))
		case isTmpfs:
			return fail("path", "grant target %s is also a tmpfs mount", t)
		case t == fshelper.HelperDir || within(t, fshelper.HelperDir) || within(fshelper.HelperDir, t):
			return fail("path", "grant target %s overlaps the file helper's directory %s, which the provider manages", t, fshelper.HelperDir)
		}
	}
	return nil
}

func volumeAt(vols []spec.VolumeMount, target string) string {
	for _, v := range vols {
		if v.Target == target {
			return v.Name
		}
	}
	return ""
}

// bindMounts are the bind mounts of the grants with a host path, in order.
func bindMounts(grants []posix.PathGrant) []mount.Mount {
	var out []mount.Mount
	for _, g := range grants {
		if g.HostPath != nil {
			out = append(out, mount.Mount{Type: mount.TypeBind, Source: *g.HostPath, Target: g.Path, ReadOnly: g.ReadOnly})
		}
	}
	return out
}

// boundAt reports whether a grant's bind mount covers target.
func boundAt(grants []posix.PathGrant, target string) bool {
	for _, g := range grants {
		if g.HostPath != nil && g.Path == target {
			return true
		}
	}
	return false
}

// missingBindSource is the *MissingHostPathError of the daemon's refusal
// of a bind mount whose source does not exist, or nil for other errors.
func missingBindSource(err error, grants []posix.PathGrant) *spec.MissingHostPathError {
	const marker = "bind source path does not exist: "
	msg := err.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return nil
	}
	src := strings.TrimSpace(msg[i+len(marker):])
	for j, g := range grants {
		if g.HostPath != nil && (*g.HostPath == src || strings.HasPrefix(src, *g.HostPath+"/")) {
			return &spec.MissingHostPathError{Index: j, HostPath: *g.HostPath}
		}
	}
	return nil
}

// readGrants reads the grants back: those the label recorded, a host_path
// grant only while its bind mount is on the container (its source and
// read-only flag as Docker has them), then bind mounts the label does not
// know.
func readGrants(hc *container.HostConfig, recorded []posix.PathGrant) []posix.PathGrant {
	binds := map[string]mount.Mount{}
	var order []string
	if hc != nil {
		for _, m := range hc.Mounts {
			if m.Type == mount.TypeBind {
				binds[m.Target] = m
				order = append(order, m.Target)
			}
		}
	}
	var out []posix.PathGrant
	used := map[string]bool{}
	for _, g := range recorded {
		if g.HostPath == nil {
			out = append(out, g)
			continue
		}
		m, ok := binds[g.Path]
		if !ok || used[g.Path] {
			continue
		}
		used[g.Path] = true
		src := m.Source
		g.HostPath, g.ReadOnly = &src, m.ReadOnly
		out = append(out, g)
	}
	for _, t := range order {
		if !used[t] {
			src := binds[t].Source
			out = append(out, posix.PathGrant{Path: t, ReadOnly: binds[t].ReadOnly, HostPath: &src})
		}
	}
	return out
}
