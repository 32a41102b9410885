package docker_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/docker"
)

// Chown runs in the container with the container's users: one file, a
// whole tree in one call, never through a planted symlink; Stat and
// WalkFiles read the owners back.
func TestDockerBackend_chown(t *testing.T) {
	b := newWorkspace(t, func(s *docker.Spec) {
		s.Users = []sandbox.User{{Name: "agent"}}
		s.Groups = []sandbox.Group{{Name: "team", Users: []sandbox.User{{Name: "agent"}}}}
	})
	ctx := context.Background()
	sh(t, b, "mkdir -p /workspace/t/a/b && echo x > /workspace/t/a/b/f && echo y > /workspace/t/g && ln -s /etc/passwd /workspace/t/pw")
	if err := b.Chown(ctx, "t", "agent", "team", true); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, b, "cd /workspace && stat -c '%U:%G %n' t t/a t/a/b t/a/b/f t/g; stat -c %U /etc/passwd"); got !=
		"agent:team t\nagent:team t/a\nagent:team t/a/b\nagent:team t/a/b/f\nagent:team t/g\nroot" {
		t.Fatalf("after a tree chown:\n%s", got)
	}
	if err := b.Chown(ctx, "t/g", "root", "", false); err != nil {
		t.Fatal(err)
	}
	// An owner without a group gives the owner's primary group, as
	// `chown root:` does.
	info, err := b.Stat(ctx, "t/g")
	if err != nil || info.Owner != "root" || info.Group != "root" || info.Uid != 0 || info.Gid != 0 {
		t.Fatalf("Stat after chown: %+v %v", info, err)
	}
	files, err := b.WalkFiles(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Rel == "a/b/f" && (f.Uid == 0 || f.Gid == 0) {
			t.Fatalf("WalkFiles reads no owner: %+v", f)
		}
	}
	if err := b.Chown(ctx, "t/pw", "agent", "", false); !errors.Is(err, backend.ErrEscapesRoot) {
		t.Fatalf("chown of a planted symlink: %v", err)
	}
	if err := b.Chown(ctx, "t", "no-such-user", "", true); err == nil || !strings.Contains(err.Error(), "no-such-user") {
		t.Fatalf("unknown user: %v", err)
	}
}
