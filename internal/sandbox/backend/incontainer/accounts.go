package incontainer

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

// Account tool flavours found in an image.
const (
	toolsShadow  = "shadow"  // groupadd, useradd, usermod (Debian, Ubuntu, Fedora, ...)
	toolsBusybox = "busybox" // addgroup, adduser (BusyBox, Alpine)
)

// detectScript prints which account tools the image has.
const detectScript = `if command -v groupadd >/dev/null 2>&1 && command -v useradd >/dev/null 2>&1 && command -v usermod >/dev/null 2>&1; then echo shadow; ` +
	`elif command -v addgroup >/dev/null 2>&1 && command -v adduser >/dev/null 2>&1; then echo busybox; else echo none; fi`

// AccountCommands returns the commands that provision users and groups,
// in the Python SDK's order (design/sdk-model.md §4.1): every group is created, then every
// unique user (the listed users, then group members not listed, in order of
// first appearance), then each member is added to each of its groups. With
// the shadow tools that is `groupadd <g>`, `useradd -U -M -s
// /usr/sbin/nologin <u>` and `usermod -aG <g> <u>`, as the Python SDK; with
// BusyBox's tools `addgroup <g>`, `adduser -D -H -s /sbin/nologin <u>`
// (which also creates the user's own group, as -U does) and
// `addgroup <u> <g>`.
func AccountCommands(tools string, users []sandbox.User, groups []sandbox.Group) [][]string {
	var cmds [][]string
	for _, g := range groups {
		if tools == toolsBusybox {
			cmds = append(cmds, []string{"addgroup", g.Name})
		} else {
			cmds = append(cmds, []string{"groupadd", g.Name})
		}
	}
	seen := map[string]bool{}
	addUser := func(u sandbox.User) {
		if seen[u.Name] {
			return
		}
		seen[u.Name] = true
		if tools == toolsBusybox {
			cmds = append(cmds, []string{"adduser", "-D", "-H", "-s", "/sbin/nologin", u.Name})
		} else {
			cmds = append(cmds, []string{"useradd", "-U", "-M", "-s", "/usr/sbin/nologin", u.Name})
		}
	}
	for _, u := range users {
		addUser(u)
	}
	for _, g := range groups {
		for _, u := range g.Users {
			addUser(u)
		}
	}
	for _, g := range groups {
		for _, u := range g.Users {
			if tools == toolsBusybox {
				cmds = append(cmds, []string{"addgroup", u.Name, g.Name})
			} else {
				cmds = append(cmds, []string{"usermod", "-aG", g.Name, u.Name})
			}
		}
	}
	return cmds
}

// Provision creates the users and groups in the container as root, with
// the image's own tools. A command that exits non-zero fails with the
// Python SDK's ExecNonZeroError.
func (w *Workspace) Provision(ctx context.Context, users []sandbox.User, groups []sandbox.Group) error {
	if len(users) == 0 && len(groups) == 0 {
		return nil
	}
	res, err := w.r.Run(ctx, Proc{Argv: []string{"sh", "-c", detectScript}, User: "0:0"})
	if err != nil {
		return fmt.Errorf("provisioning users and groups: %w", err)
	}
	tools := strings.TrimSpace(string(res.Stdout))
	if res.ExitCode != 0 || (tools != toolsShadow && tools != toolsBusybox) {
		return fmt.Errorf("provisioning users and groups: the image has neither groupadd/useradd/usermod nor addgroup/adduser (%s)",
			strings.TrimSpace(string(res.Stderr)))
	}
	for _, argv := range AccountCommands(tools, users, groups) {
		res, err := w.r.Run(ctx, Proc{Argv: argv, User: "0:0"})
		if err != nil {
			return fmt.Errorf("provisioning users and groups: %w", err)
		}
		if !res.OK() {
			return sandbox.NewExecNonZeroError(argv, res)
		}
	}
	return nil
}
