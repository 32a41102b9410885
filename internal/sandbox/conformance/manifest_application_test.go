package conformance

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// accountRunner records the commands run in a container whose image has
// the shadow tools (groupadd, useradd, usermod); every command succeeds.
type accountRunner struct{ execs [][]string }

func (r *accountRunner) Run(_ context.Context, p incontainer.Proc) (sandbox.ExecResult, error) {
	if len(p.Argv) == 3 && p.Argv[0] == "sh" && strings.Contains(p.Argv[2], "command -v groupadd") {
		return sandbox.ExecResult{Stdout: []byte("shadow\n")}, nil // the tool probe
	}
	r.execs = append(r.execs, append([]string{}, p.Argv...))
	return sandbox.ExecResult{}, nil
}

func (r *accountRunner) Name() string { return "container conformance" }

// handleManifestApplicationVector runs the parts of the Python SDK's
// ManifestApplier (design/sdk-model.md §4.1) the engine has: account
// provisioning of a container workspace.
func handleManifestApplicationVector(_ string, raw json.RawMessage, expected any) (any, error) {
	var in struct {
		Manifest          json.RawMessage `json:"manifest"`
		BaseDir           *string         `json:"base_dir"`
		ProvisionAccounts *bool           `json:"provision_accounts"`
		MaxEntries        *int            `json:"max_entry_concurrency"`
		MaxConcurrency    *int            `json:"max_concurrency"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	switch {
	case in.MaxEntries != nil || in.MaxConcurrency != nil:
		return nil, unsupported("the engine has no concurrency setting for manifest entries: a sandbox_manifest applies " +
			"its entries one after the other")
	case in.BaseDir != nil || in.ProvisionAccounts != nil:
		return nil, unsupported("the applier's call log (mkdir, apply File with base_dir) has no engine analogue: " +
			"local sources resolve against Terraform's working directory, and accounts are the workspace's users " +
			"and groups, provisioned when it is created")
	}
	m, err := decodeVectorManifest(in.Manifest)
	if err != nil || m == nil {
		return nil, err
	}
	r := &accountRunner{}
	w := incontainer.New(r, "conformance", m.Root, nil, incontainer.Hooks{})
	if err := w.Provision(context.Background(), m.Users, m.Groups); err != nil {
		return nil, err
	}
	// exec_set is the Python SDK's set of commands (users are created in
	// set order there); it is compared sorted.
	set := make([]string, 0, len(r.execs))
	for _, argv := range r.execs {
		set = append(set, strings.Join(argv, " "))
	}
	sort.Strings(set)
	got := map[string]any{"exec_set": set}
	res := partialResult{Got: got}
	// first: the Python SDK's mkdir of the root, then its first command. The
	// engine creates the root with the file helper when it creates the
	// container, before provisioning; the first command is compared.
	exp, _ := expected.(map[string]any)
	if first, ok := exp["first"].([]any); ok && len(first) == 2 && len(r.execs) > 0 {
		got["first"] = []any{append([]any{"exec"}, anySlice(r.execs[0])...)}
		res.Narrowed = map[string]narrowed{"first": {Value: first[1:],
			Why: "the root's mkdir is done by the file helper when the container is created, before provisioning"}}
	}
	return res, nil
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
