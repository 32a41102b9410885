package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Timeouts of the entry resources that copy trees (sandbox_local_dir,
// sandbox_git_repo): their model carries the timeouts block and their kind
// its defaults.

type (
	// timedModel is an entry model with a timeouts block.
	timedModel interface{ timeoutsValue() timeouts.Value }
	// timedEntry is an entry type whose operations its timeouts block bounds.
	timedEntry interface{ timeoutDefaults() map[string]opDefault }
)

// treeTimeouts are the defaults of a tree copy's operations: the copy
// (create and update) may stream gigabytes, reading back hashes every file,
// removal is one operation.
func treeTimeouts(noun string) map[string]opDefault {
	return map[string]opDefault{
		opCreate: {def: 20 * time.Minute, what: "the first " + noun},
		opUpdate: {def: 20 * time.Minute, what: "bringing the " + noun + " up to date"},
		opRead:   {def: 10 * time.Minute, what: "reading the " + noun + " back (every file is hashed)"},
		opDelete: {def: 10 * time.Minute, what: "removing the " + noun},
	}
}

// startEntryOp bounds ctx by the operation's timeout when the entry type
// has a timeouts block; otherwise ctx is returned as it is and the timer
// is nil (its finish does nothing).
func startEntryOp[P any](ctx context.Context, k any, m P, op string, diags *diag.Diagnostics) (context.Context, context.CancelFunc, *opTimer) {
	tk, ok := k.(timedEntry)
	tm, mok := any(m).(timedModel)
	if !ok || !mok {
		return ctx, func() {}, nil
	}
	return startOp(ctx, tm.timeoutsValue(), op, tk.timeoutDefaults()[op].def, diags)
}

func (m *localDirModel) timeoutsValue() timeouts.Value { return m.Timeouts }
func (m *gitRepoModel) timeoutsValue() timeouts.Value  { return m.Timeouts }

func (localDirEntry) timeoutDefaults() map[string]opDefault { return treeTimeouts("copy") }
func (gitRepoEntry) timeoutDefaults() map[string]opDefault  { return treeTimeouts("checkout") }
