package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/mount"
)

// Decoding of the mount vectors' inputs: the Python SDK's JSON forms of mounts,
// strategies, patterns and runtime configs, and the short Python-like
// notations some vectors use ("GCSMount(bucket=parent, mount_path=repo)").

// mvKV is one member of a JSON object, in document order.
type mvKV struct {
	Key string
	Val json.RawMessage
}

// mvObject decodes a JSON object keeping its member order.
func mvObject(raw json.RawMessage) ([]mvKV, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %s", raw)
	}
	var out []mvKV
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, mvKV{Key: t.(string), Val: v})
	}
	return out, nil
}

// mvOptions decodes an ordered string-or-null map.
func mvOptions(raw json.RawMessage) ([]mount.Option, error) { return mount.DecodeOptionsJSON(raw) }

// mvMountJSON holds every provider field of a mount's JSON form.
type mvMountJSON = mount.EntryJSON

func mvOr(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// mvDecodeMount decodes a mount's JSON form; pattern, when not nil, is the
// in-container pattern used when the JSON has no mount_strategy.
func mvDecodeMount(raw json.RawMessage, pattern *mount.Pattern) (*mount.Mount, error) {
	m, err := mount.DecodeJSON(raw)
	if errors.Is(err, mount.ErrUnknownType) {
		return nil, unsupported("%v", err)
	}
	if err != nil {
		return nil, err
	}
	if m.Strategy.Type == "" && pattern != nil {
		m.Strategy = mount.Strategy{Type: mount.StrategyInContainer, Pattern: pattern}
	}
	return m, nil
}

// mvDecodePattern decodes a pattern's JSON form with the Python SDK's defaults.
func mvDecodePattern(raw json.RawMessage) (*mount.Pattern, error) {
	p, err := mount.DecodePatternJSON(raw)
	if errors.Is(err, mount.ErrUnknownType) {
		return nil, unsupported("%v", err)
	}
	return p, err
}

var (
	mvNotationRe = regexp.MustCompile(`^(\w+)(?:\((.*)\))?(?:\s+(\w+))?$`)
	mvClassTypes = map[string]string{"S3Mount": mount.TypeS3, "GCSMount": mount.TypeGCS, "R2Mount": mount.TypeR2,
		"AzureBlobMount": mount.TypeAzureBlob, "BoxMount": mount.TypeBox, "S3FilesMount": mount.TypeS3Files}
)

// mvNotation reads the vectors' short notation "Class(args) pattern": args
// are "key=value" or a bare field name (set to "<name>-value"); the bucket
// defaults to "bucket". It returns the mount JSON, the class and the
// top-level args.
func mvNotation(s string) (json.RawMessage, string, map[string]string, error) {
	m := mvNotationRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || mvClassTypes[m[1]] == "" {
		return nil, "", nil, unsupported("notation %q", s)
	}
	args := map[string]string{}
	depth, start := 0, 0
	parts := []string{}
	for i, c := range m[2] {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts, start = append(parts, m[2][start:i]), i+1
			}
		}
	}
	parts = append(parts, m[2][start:])
	obj := map[string]any{"type": mvClassTypes[m[1]], "bucket": "bucket"}
	for _, a := range parts {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			v = k + "-value"
		}
		args[k] = v
		if k != "permissions" {
			obj[k] = v
		}
	}
	if m[3] != "" {
		obj["mount_strategy"] = map[string]any{"type": "in_container", "pattern": map[string]any{"type": m[3]}}
	}
	raw, err := json.Marshal(obj)
	return raw, m[1], args, err
}

// mvSession is a recording Session: it returns exit code 0 for every
// command except the mount command itself when the vector gives mount_exit.
type mvSession struct {
	root      string
	execs     [][]string
	writes    [][]string
	mountExit int
	stderr    string
}

func (s *mvSession) Root() string { return s.root }

func (s *mvSession) Exec(_ context.Context, argv []string) (mount.ExecResult, error) {
	s.execs = append(s.execs, append([]string{}, argv...))
	text := strings.Join(argv, " ")
	isMount := !strings.Contains(text, "command -v") && (argv[0] == "rclone" || argv[0] == "blobfuse2" ||
		argv[0] == "mount" || strings.Contains(text, "mount-s3 ") || strings.Contains(text, "mount -v -t nfs"))
	if isMount && s.mountExit != 0 {
		return mount.ExecResult{ExitCode: s.mountExit, Stderr: []byte(s.stderr)}, nil
	}
	return mount.ExecResult{}, nil
}

func (s *mvSession) WriteFile(_ context.Context, rel string, content []byte) error {
	s.writes = append(s.writes, []string{rel, string(content)})
	return nil
}

func (s *mvSession) ReadFile(_ context.Context, path string) ([]byte, error) {
	return nil, errors.New("no such file: " + path)
}

var mvErrorClasses = map[string]string{
	sandbox.CodeMountConfigInvalid:    "MountConfigError",
	sandbox.CodeMountFailed:           "MountCommandError",
	sandbox.CodeMountMissingTool:      "MountToolMissingError",
	sandbox.CodeExecNonZero:           "ExecNonZeroError",
	sandbox.CodeInvalidManifestPath:   "InvalidManifestPathError",
	sandbox.CodeWorkspaceReadNotFound: "WorkspaceReadNotFoundError",
}

// mvRaised renders an error the way the vectors record a raised exception:
// class, error_code, message and, when not empty, context.
func mvRaised(err error) map[string]any {
	var se *sandbox.Error
	if !errors.As(err, &se) {
		return map[string]any{"error": "RuntimeError", "message": err.Error()}
	}
	out := map[string]any{"error": mvErrorClasses[se.Code], "error_code": se.Code, "message": se.Message}
	if len(se.Context) > 0 {
		out["context"] = se.Context
	}
	return out
}
