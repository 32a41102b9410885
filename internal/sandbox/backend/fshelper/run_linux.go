//go:build linux

package fshelper

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// runAs implements OpRun (see there).
func runAs(args []string, stderr io.Writer) int {
	spec, workdir, envJSON, argv := args[0], args[1], args[2], args[3:]
	var extra []string
	if err := json.Unmarshal([]byte(envJSON), &extra); err != nil {
		fmt.Fprintf(stderr, "%s run: bad environment: %v\n", HelperName, err)
		return 126
	}
	cred, home, err := credential(spec)
	if err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", HelperName, err)
		return 126
	}
	env := os.Environ()
	if home != "" {
		env = append(env, "HOME="+home)
	}
	env = append(env, extra...)
	if workdir != "" {
		if err := os.Chdir(workdir); err != nil {
			fmt.Fprintf(stderr, "%s run: %v\n", HelperName, err)
			return 126
		}
	}
	prog, err := lookPath(argv[0], env)
	if err != nil {
		fmt.Fprintf(stderr, "%s run: %v\n", HelperName, err)
		return 127
	}
	if cred != nil {
		if err := syscall.Setgroups(cred.groups); err != nil {
			fmt.Fprintf(stderr, "%s run: setgroups: %v\n", HelperName, err)
			return 126
		}
		if err := syscall.Setgid(cred.gid); err != nil {
			fmt.Fprintf(stderr, "%s run: setgid %d: %v\n", HelperName, cred.gid, err)
			return 126
		}
		if err := syscall.Setuid(cred.uid); err != nil {
			fmt.Fprintf(stderr, "%s run: setuid %d: %v\n", HelperName, cred.uid, err)
			return 126
		}
	}
	err = syscall.Exec(prog, argv, dedupEnv(env))
	fmt.Fprintf(stderr, "%s run: exec %s: %v\n", HelperName, argv[0], err)
	return 126
}

type ids struct {
	uid, gid int
	groups   []int
}

// credential resolves "user[:group]" against the container's /etc/passwd
// and /etc/group; "" is nil (stay root).
func credential(spec string) (*ids, string, error) {
	if spec == "" {
		return nil, "", nil
	}
	name, group, hasGroup := strings.Cut(spec, ":")
	c := &ids{}
	home := ""
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			n, perr := strconv.Atoi(name)
			if name == "root" {
				n, perr = 0, nil // root is uid 0, /etc/passwd or not
			}
			if perr != nil || n < 0 {
				return nil, "", fmt.Errorf("unknown user %q", name)
			}
			c.uid = n // a bare uid with no passwd entry: group 0, as docker exec
			u = nil
		}
	}
	if u != nil {
		c.uid, _ = strconv.Atoi(u.Uid)
		c.gid, _ = strconv.Atoi(u.Gid)
		home = u.HomeDir
		if gids, err := u.GroupIds(); err == nil {
			for _, g := range gids {
				if n, err := strconv.Atoi(g); err == nil {
					c.groups = append(c.groups, n)
				}
			}
		}
	}
	if hasGroup {
		g, err := user.LookupGroup(group)
		if err != nil {
			if g, err = user.LookupGroupId(group); err != nil {
				n, perr := strconv.Atoi(group)
				if group == "root" {
					n, perr = 0, nil
				}
				if perr != nil || n < 0 {
					return nil, "", fmt.Errorf("unknown group %q", group)
				}
				c.gid = n
				g = nil
			}
		}
		if g != nil {
			c.gid, _ = strconv.Atoi(g.Gid)
		}
	}
	if len(c.groups) == 0 {
		c.groups = []int{c.gid}
	}
	return c, home, nil
}

// lookPath finds prog on the PATH of env (the command's, not the helper's).
func lookPath(prog string, env []string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	pathVar := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range strings.Split(pathVar, ":") {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + prog
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: prog, Err: exec.ErrNotFound}
}

// dedupEnv keeps the last value of each name, in first-seen order.
func dedupEnv(env []string) []string {
	idx := map[string]int{}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}
