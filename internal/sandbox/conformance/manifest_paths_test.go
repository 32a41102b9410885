package conformance

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/snapshot"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// Conformance handlers for the Python SDK's manifest path vectors: entry
// iteration, ephemeral entries, mount targets and the paths a persist
// leaves out.

func handleManifestPathsVector(raw json.RawMessage, expected any) (any, error) {
	var in struct {
		Fn       string          `json:"fn"`
		Manifest json.RawMessage `json:"manifest"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	entries, err := manifest.DecodeEntries(in.Manifest)
	if err != nil {
		return nil, err
	}
	switch in.Fn {
	case "validated_entries", "iter_entries paths":
		list, err := entries.ValidatedEntries()
		if err != nil {
			return nil, err
		}
		paths := make([]string, 0, len(list))
		for _, ep := range list {
			paths = append(paths, ep.Path)
		}
		return paths, nil
	case "ephemeral_entry_paths":
		// The Python SDK returns a set; compare as sorted lists.
		if exp, ok := expected.([]any); ok {
			sort.Slice(exp, func(i, j int) bool { return fmt.Sprint(exp[i]) < fmt.Sprint(exp[j]) })
		}
		paths, err := entries.EphemeralEntryPaths()
		if err != nil {
			return nil, err
		}
		if paths == nil {
			paths = []string{}
		}
		return paths, nil
	case "ephemeral_persistence_paths", "mount_targets", "ephemeral_mount_targets":
		return manifestMountPaths(in.Fn, in.Manifest, entries, expected)
	}
	return nil, unsupported("fn %q", in.Fn)
}

// manifestMountPaths runs the Python SDK's Manifest.mount_targets (absolute
// targets, deepest first), ephemeral_mount_targets (those of ephemeral
// mounts) and ephemeral_persistence_paths (ephemeral entry paths plus the
// ephemeral mount targets below the root, relative; a set, compared
// sorted) with the engine's mount path resolution and snapshot skip paths.
func manifestMountPaths(fn string, raw json.RawMessage, entries manifest.Entries, expected any) (any, error) {
	var man struct {
		Root *string `json:"root"`
	}
	if err := json.Unmarshal(raw, &man); err != nil {
		return nil, err
	}
	root := "/workspace"
	if man.Root != nil {
		root = *man.Root
	}
	var targets []mount.Target
	ephemeral := map[*mount.Mount]bool{}
	err := entries.IterEntries(func(rel string, e *manifest.Entry) error {
		if _, isMount := e.Field("mount_strategy"); !isMount {
			return nil
		}
		b, err := e.JSON()
		if err != nil {
			return err
		}
		m, err := mvDecodeMount(b, nil)
		if err != nil {
			return err
		}
		p, err := workspace.ResolveMountPath(root, rel, m)
		if err != nil {
			return err
		}
		ephemeral[m] = e.Ephemeral
		targets = append(targets, mount.Target{Key: rel, Mount: m, Path: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	mount.SortTargets(targets)
	var paths []string
	for _, t := range targets {
		if fn == "mount_targets" || ephemeral[t.Mount] {
			paths = append(paths, t.Path)
		}
	}
	if fn != "ephemeral_persistence_paths" {
		if exp, ok := expected.([]any); ok && len(exp) > 0 {
			if _, isStr := exp[0].(string); !isStr {
				return nil, unsupported("%s as %s: only target paths are rendered", fn, jsonText(exp[0]))
			}
		}
		return append([]string{}, paths...), nil
	}
	excluded, err := entries.EphemeralEntryPaths()
	if err != nil {
		return nil, err
	}
	if exp, ok := expected.([]any); ok {
		sort.Slice(exp, func(i, j int) bool { return fmt.Sprint(exp[i]) < fmt.Sprint(exp[j]) })
	}
	skip := snapshot.SkipPaths{Excluded: excluded, Mounts: snapshot.MountsUnder(root, paths)}
	return append([]string{}, skip.All()...), nil
}
