package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	tfpath "github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/manifest"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/posix"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/workspace"
)

// attrGetter is a configuration, plan or state.
type attrGetter interface {
	GetAttribute(ctx context.Context, p tfpath.Path, target interface{}) diag.Diagnostics
}

func pathOf(steps ...string) tfpath.Path {
	p := tfpath.Root(steps[0])
	for _, s := range steps[1:] {
		p = p.AtName(s)
	}
	return p
}

// mountInput is a mount resource's values turned into an engine mount.
type mountInput struct {
	m           *mount.Mount
	rel         string // normalized entry path
	workspaceID string // "" when null or unknown
	description *string
	ephemeral   bool
}

// readInput reads a mount from src (plain attributes) and cfg (write-only
// attributes; nil when they are not available, as in Delete). ok is false
// when a value is unknown or the shape is invalid (then diags say why).
func (r *mountResource) readInput(ctx context.Context, src attrGetter, cfg *tfsdk.Config, diags *diag.Diagnostics) (mountInput, bool) {
	var p, ws, mp, desc types.String
	var ro, eph types.Bool
	var inC, dv types.Object
	for name, target := range map[string]any{"path": &p, "workspace_id": &ws, "mount_path": &mp, "description": &desc,
		"read_only": &ro, "ephemeral": &eph, "in_container": &inC, "docker_volume": &dv} {
		diags.Append(src.GetAttribute(ctx, tfpath.Root(name), target)...)
	}
	if diags.HasError() || p.IsUnknown() || mp.IsUnknown() || ro.IsUnknown() || p.IsNull() {
		return mountInput{}, false
	}
	rel, err := posix.ValidateEntryPath(p.ValueString())
	if err != nil {
		return mountInput{}, false // entryPathValidator reports it
	}
	strategy, ok := strategyFrom(ctx, inC, dv, diags)
	if !ok {
		return mountInput{}, false
	}
	vals := mountValues{}
	for _, f := range r.kind.fields {
		var v types.String
		switch {
		case !f.secret:
			diags.Append(src.GetAttribute(ctx, tfpath.Root(f.attr()), &v)...)
		case cfg != nil:
			diags.Append(cfg.GetAttribute(ctx, tfpath.Root(f.attr()), &v)...)
		default:
			continue
		}
		if v.IsUnknown() {
			return mountInput{}, false
		}
		vals[f.name] = strPtr(v)
	}
	var extra []mount.Option
	if r.kind.extraOptions {
		var em types.Map
		diags.Append(src.GetAttribute(ctx, tfpath.Root("extra_options"), &em)...)
		if em.IsUnknown() {
			return mountInput{}, false
		}
		extra = optionList(em)
	}
	m := &mount.Mount{Type: r.kind.typ, MountPath: strPtr(mp), ReadOnly: ro.IsNull() || ro.ValueBool(), Strategy: strategy}
	r.kind.build(m, vals, extra)
	in := mountInput{m: m, rel: rel, description: strPtr(desc), ephemeral: eph.IsNull() || eph.ValueBool()}
	if !ws.IsUnknown() {
		in.workspaceID = ws.ValueString()
	}
	return in, !diags.HasError()
}

// checkBoundary runs the Python SDK's credential boundary (design/sdk-model.md §5.8) on the
// mount alone, in a workspace with the given root and backend ("" when not
// known yet). Declaring credentials on a mount resource is this provider's
// form of the Python SDK's per-path exposure acknowledgement, so the mount's own
// target is acknowledged (mount-scoped and broad) whenever the Python SDK's rules
// allow acknowledging it: a target outside the root cannot be, as in the
// Python SDK. Every other rule applies as the Python SDK's: complete key sets, no blank
// values, no line breaks, supported capabilities only.
func (in mountInput) checkBoundary(root, backend string) error {
	target, err := workspace.ResolveMountPath(root, in.rel, in.m)
	if err != nil {
		return err
	}
	in2 := mount.BoundaryInput{Root: root, Backend: backend, Mounts: []mount.BoundaryEntry{{Path: in.rel, Target: target, Mount: in.m}}}
	canAck := mount.ValidateAcknowledgementPath(root, target) == nil
	// Acknowledge exactly the kinds of exposure the mount needs: giving a
	// kind its capability does not support is refused by the Python SDK's rules.
	for range 3 {
		err := mount.CheckCredentialBoundary(in2)
		scoped, broad := mount.MissingAcknowledgement(err)
		if !scoped && !broad {
			return err
		}
		if !canAck {
			return fmt.Errorf("mount path %s is not inside the workspace root %s: a mount whose helper receives "+
				"credentials must lie inside the root, the only paths whose exposure the Python SDK lets a manifest "+
				"acknowledge; use a mount_path inside the workspace (%w)", target, root, err)
		}
		if scoped {
			in2.Ack.MountScoped = []string{target}
		}
		if broad {
			in2.Ack.Broad = []string{target}
		}
	}
	return mount.CheckCredentialBoundary(in2)
}

// credentialFiles returns the credential-file fields that are set
// (service_account_file, box_config_file, rclone config_file_path), by
// field name.
func (in mountInput) credentialFiles() map[string]string {
	out := map[string]string{}
	if g := in.m.GCS; g != nil && g.ServiceAccountFile != nil {
		out["service_account_file"] = *g.ServiceAccountFile
	}
	if b := in.m.Box; b != nil && b.BoxConfigFile != nil {
		out["box_config_file"] = *b.BoxConfigFile
	}
	if p := in.m.Strategy.Pattern; p != nil && p.Rclone != nil && p.Rclone.ConfigFilePath != nil {
		out["config_file_path"] = *p.Rclone.ConfigFilePath
	}
	return out
}

// credentialFileInWorkspace returns the field of a credential file given
// as a relative path: the Python SDK resolves those under the workspace root,
// where workspace entries (and the agent) can write, so they are refused as
// the Python SDK refuses credential files the manifest materialises.
func (in mountInput) credentialFileInWorkspace() string {
	for _, f := range sortedFieldNames(in.credentialFiles()) {
		if !strings.HasPrefix(in.credentialFiles()[f], "/") {
			return f
		}
	}
	return ""
}

// credentialFileUnder returns the field of a credential file given as an
// absolute path inside root (refused for the same reason).
func (in mountInput) credentialFileUnder(root string) string {
	files := in.credentialFiles()
	for _, f := range sortedFieldNames(files) {
		p := path.Clean(files[f])
		if p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") {
			return f
		}
	}
	return ""
}

func sortedFieldNames(m map[string]string) []string { return sandboxSortedKeys(m) }

// manifestEntry renders the mount as the Python SDK's JSON with its authority
// removed (the Python SDK's durable serialization).
func (r *mountResource) manifestEntry(ctx context.Context, src attrGetter, in mountInput) (types.String, error) {
	obj := map[string]any{"type": in.m.Type, "ephemeral": in.ephemeral, "read_only": in.m.ReadOnly}
	if in.description != nil {
		obj["description"] = *in.description
	}
	if in.m.MountPath != nil {
		obj["mount_path"] = *in.m.MountPath
	}
	for _, f := range r.kind.fields {
		if f.secret {
			continue
		}
		var v types.String
		if d := src.GetAttribute(ctx, tfpath.Root(f.attr()), &v); d.HasError() || v.IsUnknown() {
			return types.StringUnknown(), nil
		}
		if s := strPtr(v); s != nil {
			obj[f.name] = *s
		}
	}
	obj["mount_strategy"] = strategyJSON(in.m.Strategy)
	payload := map[string]any{"entries": map[string]any{in.rel: obj}}
	raw, err := json.Marshal(payload)
	if err != nil {
		return types.StringUnknown(), err
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return types.StringUnknown(), err
	}
	clean, _, err := mount.SanitizeRawManifestMountAuthority(decoded)
	if err != nil {
		return types.StringUnknown(), err
	}
	cm, _ := clean.(map[string]any)
	entries, _ := cm["entries"].(map[string]any)
	entryJSON, err := json.Marshal(entries[in.rel])
	if err != nil {
		return types.StringUnknown(), err
	}
	e, err := manifest.ParseEntry(entryJSON)
	if err != nil {
		return types.StringUnknown(), err
	}
	b, err := e.JSON()
	if err != nil {
		return types.StringUnknown(), err
	}
	return types.StringValue(string(b)), nil
}

// strategyJSON is the Python SDK JSON of a strategy (only set fields; the
// manifest parser fills in defaults).
func strategyJSON(s mount.Strategy) map[string]any {
	if s.Type == mount.StrategyDockerVolume {
		return map[string]any{"type": s.Type, "driver": s.Driver, "driver_options": map[string]any{}}
	}
	p := s.Pattern
	pat := map[string]any{"type": p.Type}
	put := func(k string, v *string) {
		if v != nil {
			pat[k] = *v
		}
	}
	switch {
	case p.Rclone != nil:
		pat["mode"] = p.Rclone.Mode
		put("remote_name", p.Rclone.RemoteName)
		pat["extra_args"] = append([]string{}, p.Rclone.ExtraArgs...)
		put("nfs_addr", p.Rclone.NFSAddr)
		if p.Rclone.NFSMountOptions != nil {
			pat["nfs_mount_options"] = p.Rclone.NFSMountOptions
		}
		put("config_file_path", p.Rclone.ConfigFilePath)
	case p.Mountpoint != nil:
		o := map[string]any{}
		for k, v := range map[string]*string{"prefix": p.Mountpoint.Prefix, "region": p.Mountpoint.Region, "endpoint_url": p.Mountpoint.EndpointURL} {
			if v != nil {
				o[k] = *v
			}
		}
		pat["options"] = o
	case p.Fuse != nil:
		f := p.Fuse
		pat["allow_other"], pat["log_type"], pat["log_level"], pat["cache_type"] = f.AllowOther, f.LogType, f.LogLevel, f.CacheType
		put("cache_path", f.CachePath)
		pat["block_cache_block_size_mb"], pat["block_cache_disk_timeout_sec"] = f.BlockCacheBlockSizeMB, f.BlockCacheDiskTimeoutSec
		pat["file_cache_timeout_sec"] = f.FileCacheTimeoutSec
		for k, v := range map[string]*int64{"cache_size_mb": f.CacheSizeMB, "file_cache_max_size_mb": f.FileCacheMaxSizeMB,
			"attr_cache_timeout_sec": f.AttrCacheTimeoutSec, "entry_cache_timeout_sec": f.EntryCacheTimeoutSec,
			"negative_entry_cache_timeout_sec": f.NegativeEntryCacheTimeoutSec} {
			if v != nil {
				pat[k] = *v
			}
		}
	case p.S3Files != nil:
		o := map[string]any{}
		for k, v := range map[string]*string{"mount_target_ip": p.S3Files.MountTargetIP, "access_point": p.S3Files.AccessPoint, "region": p.S3Files.Region} {
			if v != nil {
				o[k] = *v
			}
		}
		pat["options"] = o
	}
	return map[string]any{"type": s.Type, "pattern": pat}
}

// addMountError reports an engine error on the attribute it is about: the
// credential or configuration field it names, the pattern or driver.
func (r *mountResource) addMountError(diags *diag.Diagnostics, summary string, err error) {
	var se *sandbox.Error
	if errors.As(err, &se) && (se.Message == "invalid mount_pattern type" || se.Message == "invalid Docker volume driver") {
		p := tfpath.Root("in_container")
		if se.Message == "invalid Docker volume driver" {
			p = pathOf("docker_volume", "driver")
		}
		diags.AddAttributeError(p, summary, se.Message+"\n\n"+r.kind.typ+" supports "+supportMatrixText(r.kind.typ)+
			" (the Python SDK's support matrix).")
		return
	}
	if p, ok := r.mountErrorPath(err); ok {
		// Terraform cannot point at an attribute that is not set (the
		// missing half of a key pair), so the detail names it too.
		var tmp diag.Diagnostics
		addEngineError(&tmp, summary, err)
		for _, d := range tmp {
			diags.AddAttributeError(p, d.Summary(), d.Detail()+"\n\nattribute: "+p.String())
		}
		return
	}
	addEngineError(diags, summary, err)
}

func (r *mountResource) mountErrorPath(err error) (tfpath.Path, bool) {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return tfpath.Path{}, false
	}
	var names []string
	for _, k := range []string{"credential_fields", "configuration_fields", "credential_field"} {
		names = append(names, contextNames(se.Context[k])...)
	}
	for _, n := range names {
		if f, ok := r.kind.field(n); ok {
			return tfpath.Root(f.attr()), true
		}
		switch n {
		case "mount_strategy.pattern.extra_args":
			return pathOf("in_container", "rclone", "extra_args"), true
		case "mount_strategy.pattern.remote_name":
			return pathOf("in_container", "rclone", "remote_name"), true
		case "mount_strategy.pattern.config_file_path", "config_file_path":
			return pathOf("in_container", "rclone", "config_file_path"), true
		case "mount_strategy.pattern.options.endpoint_url":
			return pathOf("in_container", "mountpoint", "endpoint_url"), true
		case "extra_options":
			return tfpath.Root("extra_options"), true
		case "driver_options", "mount_strategy.driver_options":
			return pathOf("docker_volume", "driver_options"), true
		}
	}
	switch {
	case se.Message == "invalid mount_pattern type":
		return tfpath.Root("in_container"), true
	case se.Message == "invalid Docker volume driver":
		return pathOf("docker_volume", "driver"), true
	case strings.HasPrefix(se.Message, "blobfuse cache_path"):
		return pathOf("in_container", "fuse", "cache_path"), true
	case se.Code == sandbox.CodeInvalidManifestPath:
		return tfpath.Root("mount_path"), true
	}
	return tfpath.Path{}, false
}
