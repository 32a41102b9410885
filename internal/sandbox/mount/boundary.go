package mount

import (
	"errors"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
)

// Messages of the credential boundary (design/sdk-model.md §5.8), verbatim from the Python SDK.
const (
	msgDockerVolumeBackend    = "docker-volume mounts are not supported by this sandbox backend"
	msgStrategyBackend        = "mount strategy is not supported by this sandbox backend"
	msgManifestCredentialFile = "credential files stored in the manifest are not supported for cloud mounts; " +
		"configure credentials outside the sandbox manifest"
	msgConfigLineBreak         = "cloud mount configuration values must not contain line breaks"
	msgIncompleteCredentialSet = "in-container access credentials require a complete non-empty credential set"
	msgBlankAuthorityValue     = "in-container mount authentication values must not be empty or whitespace-only"
	msgBoxNonInteractive       = "in-container Box mounts require a non-interactive authentication source; " +
		"configure a token, access token, or JWT credentials before activation"
	msgUnsupportedCombination = "credential-bearing in-container mounts require an SDK-supported strategy, " +
		"mount type, and pattern combination before exposure can be acknowledged; " +
		"use a credentialless helper or an external/provider-native mount strategy"
	msgUnsupportedCredentialField = "the selected in-container mount capability does not support exposing the " +
		"configured credential fields; use supported credentials, a credentialless helper, or an " +
		"external/provider-native mount strategy"
	msgNoMountScopedSupport       = "the selected in-container mount capability does not support mount-scoped credentials"
	msgNoBroadSupport             = "the selected in-container mount capability does not support broad credential authority"
	msgMountScopedNotAcknowledged = "mount-scoped credentials cannot be exposed to a helper inside a " +
		"model-controlled sandbox by default; use a credentialless or external/provider-native strategy, " +
		"or explicitly acknowledge exposure for this exact path with " +
		"Manifest.with_in_container_mount_credential_exposure_acknowledged()"
	msgBroadNotAcknowledged = "broad credential authority cannot be exposed to a helper inside a " +
		"model-controlled sandbox by default; use a credentialless or external/provider-native strategy, " +
		"or explicitly acknowledge broad exposure for this exact path with " +
		"Manifest.with_in_container_mount_broad_credential_exposure_acknowledged()"
	msgCustomMount    = "custom mount implementations are not supported at the sandbox credential boundary"
	msgCustomStrategy = "custom mount strategies are not supported at the sandbox credential boundary"
	msgCustomPattern  = "custom mount patterns are not supported at the sandbox credential boundary"
)

// BoundaryEntry is one mount entry of a manifest.
type BoundaryEntry struct {
	// Path is the entry's root-relative manifest path ("data",
	// "parent/data").
	Path string
	// Target is the resolved mount target (design/sdk-model.md §5.2), absolute; "" means
	// Root joined with Path.
	Target string
	// Mount is the mount itself.
	Mount *Mount
}

// BoundaryInput is what the credential boundary needs from a manifest.
type BoundaryInput struct {
	// Root is the manifest root; "" means "/workspace".
	Root string
	// Mounts are the manifest's mount entries, in manifest order.
	Mounts []BoundaryEntry
	// MaterializedPaths are the root-relative (or absolute) paths of every
	// other manifest entry that can place content in the workspace: all
	// entries but plain directories (dir, and local_dir without src). Mount
	// entries count too and are added from Mounts.
	MaterializedPaths []string
	// Backend is the sandbox backend ("docker", "unix_local"); "" skips the
	// backend/strategy check.
	Backend string
	// Ack holds the exposure acknowledgements.
	Ack Acknowledgements
}

// CheckCredentialBoundary validates every mount's credential authority
// before anything runs, following the Python SDK's
// validate_manifest_mount_credential_boundaries (design/sdk-model.md §5.8). Acknowledgement
// paths are checked first (ValidateAcknowledgementPath's errors), then
// every mount's provenance (unknown mount, strategy or pattern types), then
// the mounts in target order (deepest first, as mount_targets sorts them),
// rule by rule, the first failure winning: backend/strategy mismatch;
// credential files (service_account_file, box_config_file, rclone
// config_file_path) under a materialised entry; line breaks in rclone
// configuration values (in-container rclone); an incomplete S3, GCS-HMAC or
// R2 key set; blank authority values; then, for in-container mounts only,
// the Box non-interactive source, an unsupported strategy/type/pattern
// combination, unsupported credential fields, acknowledgements of an
// unsupported kind, and missing mount-scoped or broad acknowledgements.
// Errors are *sandbox.Error with CodeMountConfigInvalid and the Python SDK's
// messages and context keys (mount_type, strategy_type, pattern_type,
// credential_fields sorted, configuration_fields, credential_field,
// sandbox_backend); acknowledgement path errors are plain errors or
// *sandbox.Error for invalid manifest paths.
func CheckCredentialBoundary(in BoundaryInput) error {
	root := in.Root
	if root == "" {
		root = manifest.DefaultRoot
	}
	scoped, err := ackSet(root, in.Ack.MountScoped)
	if err != nil {
		return err
	}
	broad, err := ackSet(root, in.Ack.Broad)
	if err != nil {
		return err
	}
	materialized := append([]string(nil), in.MaterializedPaths...)
	for _, e := range in.Mounts {
		if err := provenanceError(e.Mount); err != nil {
			return err
		}
		materialized = append(materialized, e.Path)
	}
	type target struct {
		entry BoundaryEntry
		path  string
		depth int
	}
	targets := make([]target, 0, len(in.Mounts))
	for _, e := range in.Mounts {
		t := e.Target
		if t == "" {
			t = absManifestPath(root, e.Path)
		}
		depth := len(splitPosixParts(t))
		if strings.HasPrefix(t, "/") {
			depth++
		}
		targets = append(targets, target{e, t, depth})
	}
	sort.SliceStable(targets, func(i, j int) bool { return targets[i].depth > targets[j].depth })
	for _, t := range targets {
		b := boundaryCheck{root: root, target: t.path, m: t.entry.Mount, backend: in.Backend,
			materialized: materialized, scoped: scoped, broad: broad}
		if err := b.check(); err != nil {
			return err
		}
	}
	return nil
}

// configError builds the Python SDK's MountConfigError: code mount_config_invalid,
// op "materialize", not retryable.
func configError(msg string, ctx map[string]any) *sandbox.Error {
	retryable := false
	if ctx == nil {
		ctx = map[string]any{}
	}
	return &sandbox.Error{Code: sandbox.CodeMountConfigInvalid, Op: "materialize", Message: msg, Context: ctx,
		Retryable: &retryable}
}

func provenanceError(m *Mount) error {
	if m == nil || len(providerStringFields(m)) == 0 {
		return configError(msgCustomMount, nil)
	}
	if _, ok := strategyClasses[m.Strategy.Type]; !ok {
		return configError(msgCustomStrategy, nil)
	}
	switch inContainerPatternType(m) {
	case "", PatternRclone, PatternMountpoint, PatternFuse, PatternS3Files:
		return nil
	}
	return configError(msgCustomPattern, nil)
}

// boundaryCheck holds what the rules of one mount need.
type boundaryCheck struct {
	root, target, backend string
	m                     *Mount
	materialized          []string
	scoped, broad         map[string]bool
}

func (b boundaryCheck) check() error {
	m := b.m
	class := strategyClasses[m.Strategy.Type]
	inContainer := class.boundary == strategyBoundaryContainer
	if b.backend != "" && class.backend != "" && class.backend != b.backend {
		msg := msgStrategyBackend
		if m.Strategy.Type == StrategyDockerVolume {
			msg = msgDockerVolumeBackend
		}
		return configError(msg, map[string]any{"mount_type": m.Type, "strategy_type": m.Strategy.Type,
			"sandbox_backend": b.backend})
	}
	fields := providerStringFields(m)
	for _, name := range authorityFileFields[m.Type] {
		if v := fields[name]; v != nil && *v != "" && b.materializes(*v) {
			return configError(msgManifestCredentialFile, map[string]any{"mount_type": m.Type, "credential_field": name})
		}
	}
	rclone := inContainerPatternType(m) == PatternRclone
	if rc := m.Strategy.Pattern; rclone && rc.Rclone != nil && rc.Rclone.ConfigFilePath != nil &&
		b.materializes(*rc.Rclone.ConfigFilePath) {
		return configError(msgManifestCredentialFile, map[string]any{"mount_type": m.Type,
			"credential_field": fieldConfigFilePath})
	}
	if !inContainer {
		return nil
	}
	if bad := rcloneLineBreakFields(m); rclone && len(bad) > 0 {
		return configError(msgConfigLineBreak, map[string]any{"mount_type": m.Type, "configuration_fields": bad})
	}
	if bad := incompleteCredentialSet(m.Type, fields); len(bad) > 0 {
		return configError(msgIncompleteCredentialSet, map[string]any{"mount_type": m.Type, "credential_fields": bad})
	}
	var blank []string
	for _, name := range authorityFields[m.Type] {
		if v := fields[name]; v != nil && trimPySpace(*v) == "" {
			blank = append(blank, name)
		}
	}
	if len(blank) > 0 {
		sort.Strings(blank)
		return configError(msgBlankAuthorityValue, map[string]any{"mount_type": m.Type, "credential_fields": blank})
	}
	return b.checkExposure(fields)
}

// checkExposure applies the in-container capability and acknowledgement
// rules.
func (b boundaryCheck) checkExposure(fields map[string]*string) error {
	m := b.m
	key, err := ackKey(b.root, b.target, false)
	if err != nil {
		return err
	}
	scopedAck, broadAck := key != "" && b.scoped[key], key != "" && b.broad[key]
	authority := CredentialFields(m)
	c := findCapability(m.Type, m.Strategy.Type, inContainerPatternType(m))
	if c != nil && len(c.requiredAny) > 0 && !anyNonBlank(fields, c.requiredAny) {
		return configError(msgBoxNonInteractive, map[string]any{"mount_type": m.Type})
	}
	if len(authority) == 0 && !scopedAck && !broadAck && (c == nil || !c.implicitBroad) {
		return nil
	}
	if c == nil {
		var pattern any
		if p := inContainerPatternType(m); p != "" {
			pattern = p
		}
		return configError(msgUnsupportedCombination, map[string]any{"mount_type": m.Type,
			"strategy_type": m.Strategy.Type, "pattern_type": pattern, "credential_fields": sortedSubset(authority, nil)})
	}
	var unsupported []string
	for _, f := range authority {
		if !c.scoped[f] && !c.broad[f] {
			unsupported = append(unsupported, f)
		}
	}
	if len(unsupported) > 0 {
		sort.Strings(unsupported)
		return configError(msgUnsupportedCredentialField, map[string]any{"mount_type": m.Type,
			"strategy_type": m.Strategy.Type, "credential_fields": unsupported})
	}
	if scopedAck && len(c.scoped) == 0 {
		return configError(msgNoMountScopedSupport, map[string]any{"mount_type": m.Type, "strategy_type": m.Strategy.Type})
	}
	if broadAck && len(c.broad) == 0 && !c.implicitBroad {
		return configError(msgNoBroadSupport, map[string]any{"mount_type": m.Type, "strategy_type": m.Strategy.Type})
	}
	if needs := sortedSubset(authority, c.scoped); len(needs) > 0 && !scopedAck {
		return configError(msgMountScopedNotAcknowledged, map[string]any{"mount_type": m.Type, "credential_fields": needs})
	}
	if needs := sortedSubset(authority, c.broad); (len(needs) > 0 || c.implicitBroad) && !broadAck {
		return configError(msgBroadNotAcknowledged, map[string]any{"mount_type": m.Type, "credential_fields": needs})
	}
	return nil
}

// sortedSubset returns the names in set (all names when set is nil), sorted,
// never nil.
func sortedSubset(names []string, set map[string]bool) []string {
	out := []string{}
	for _, n := range names {
		if set == nil || set[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func anyNonBlank(fields map[string]*string, names []string) bool {
	for _, n := range names {
		if v := fields[n]; v != nil && trimPySpace(*v) != "" {
			return true
		}
	}
	return false
}

// incompleteCredentialSet returns, sorted, the fields of an active inline
// credential set that are blank or missing but required, plus any blank
// configured member.
func incompleteCredentialSet(mountType string, fields map[string]*string) []string {
	set, ok := credentialSets[mountType]
	if !ok {
		return nil
	}
	active := false
	for _, n := range set[0] {
		active = active || fields[n] != nil
	}
	if !active {
		return nil
	}
	bad := map[string]bool{}
	for _, n := range set[0] {
		if v := fields[n]; v != nil && trimPySpace(*v) == "" {
			bad[n] = true
		}
	}
	for _, n := range set[1] {
		if v := fields[n]; v == nil || trimPySpace(*v) == "" {
			bad[n] = true
		}
	}
	out := make([]string, 0, len(bad))
	for n := range bad {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// materializes reports whether a manifest entry could place content at the
// credential file path p: an entry at p or at one of its parents.
func (b boundaryCheck) materializes(p string) bool {
	target := absManifestPath(b.root, p)
	for _, e := range b.materialized {
		ep := absManifestPath(b.root, e)
		if ep == target || ep == "/" || strings.HasPrefix(target, ep+"/") {
			return true
		}
	}
	return false
}

// MissingAcknowledgement reports whether err is the boundary's refusal of
// an unacknowledged exposure, and of which kind: mount-scoped (inline keys
// and tokens) or broad (identity ids, credential files, blobfuse, S3
// Files). A caller that treats a declaration as the acknowledgement adds
// that kind for the path and checks again; acknowledging a kind that the
// capability does not support is itself refused, so only the needed kinds
// may be given.
func MissingAcknowledgement(err error) (scoped, broad bool) {
	var se *sandbox.Error
	if !errors.As(err, &se) || se.Code != sandbox.CodeMountConfigInvalid {
		return false, false
	}
	return se.Message == msgMountScopedNotAcknowledged, se.Message == msgBroadNotAcknowledged
}
