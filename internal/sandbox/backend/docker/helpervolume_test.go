package docker_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/incontainer"
)

// The agent is root in a default workspace: it must still not be able to
// change, replace, rename or unmount the file helper, and what the
// provider then does uses the genuine helper.
func TestDockerBackend_helperOutOfReach(t *testing.T) {
	b := newWorkspace(t, nil)
	ctx := context.Background()
	h, err := incontainer.FindHelper()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := docker.NewClient(docker.HostConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ins, err := cli.ContainerInspect(ctx, b.ContainerID(), client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mounted := false
	for _, m := range ins.Container.Mounts {
		if m.Destination == "/.sandbox-fs-helper" {
			mounted = !m.RW && m.Name == docker.HelperVolumePrefix+h.Digest
		}
	}
	if !mounted {
		t.Fatalf("no read-only helper volume at /.sandbox-fs-helper: %+v", ins.Container.Mounts)
	}
	bin := "/.sandbox-fs-helper/" + h.Digest + "/sandbox-fs-helper"
	for _, attack := range []string{
		"cp /bin/sh " + bin,
		"echo '#!/bin/sh' > " + bin,
		"rm -f " + bin,
		"chmod 777 " + bin,
		"mv /.sandbox-fs-helper/" + h.Digest + " /.sandbox-fs-helper/x",
		"mv /.sandbox-fs-helper /moved",
		"rm -rf /.sandbox-fs-helper",
		"mkdir /.sandbox-fs-helper/" + strings.Repeat("0", 16),
		"umount /.sandbox-fs-helper",
		"umount -l /.sandbox-fs-helper",
		"mount -o remount,rw /.sandbox-fs-helper",
	} {
		if out := sh(t, b, "if "+attack+" 2>/dev/null; then echo changed; fi"); out != "" {
			t.Errorf("as root in the container, %q succeeded", attack)
		}
	}
	// The helper in the container is the host's, byte for byte.
	want, err := os.ReadFile(h.Path)
	if err != nil {
		t.Fatal(err)
	}
	if got := sh(t, b, "cat "+bin+" | wc -c"); got != strconv.Itoa(len(want)) {
		t.Errorf("the helper in the container is %s bytes, want %d", got, len(want))
	}

	// A new provider process trusts the mount and works.
	fresh := docker.NewDaemon(docker.HostConfig{}).Open(b.ContainerID(), "/workspace")
	if _, err := fresh.WriteFile(ctx, "a.txt", strings.NewReader("hello"), 0o644, ""); err != nil {
		t.Fatal(err)
	}
	if fi, err := fresh.Stat(ctx, "a.txt"); err != nil || fi.Size != 5 {
		t.Fatalf("stat: %+v %v", fi, err)
	}
	sh(t, b, "mkdir -p /workspace/d && echo x > /workspace/d/y")
	var snap bytes.Buffer
	if err := fresh.Persist(ctx, nil, &snap); err != nil {
		t.Fatal(err)
	}
	// The snapshot holds exactly what the workspace holds.
	var names []string
	tr := tar.NewReader(&snap)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Trim(strings.TrimPrefix(hdr.Name, "./"), "/"); n != "" && n != "." {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	found := strings.Fields(sh(t, b, "cd /workspace && find . -mindepth 1 | sed 's#^./##' | sort"))
	if strings.Join(names, " ") != strings.Join(found, " ") {
		t.Errorf("snapshot holds %v, the workspace %v", names, found)
	}
}
