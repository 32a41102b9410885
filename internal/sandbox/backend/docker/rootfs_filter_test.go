package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/redact"
)

type member struct {
	name, body, link string
	typ              byte
}

func exported(t *testing.T, ms ...member) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range ms {
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Mode: 0o644, Linkname: m.link, Size: int64(len(m.body))}
		if m.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if m.typ == tar.TypeReg {
			_, _ = tw.Write([]byte(m.body))
		}
	}
	_ = tw.Close()
	return &buf
}

func names(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.Name)
	}
}

func TestRootfsFilterLeavesOut(t *testing.T) {
	in := exported(t,
		member{name: "opt/tool/bin/x", body: "tool", typ: tar.TypeReg},
		member{name: "workspace/keep.txt", body: "k", typ: tar.TypeReg},
		member{name: "workspace/secrets/token", body: "tok", typ: tar.TypeReg},
		member{name: "workspace/alias", link: "workspace/secrets/token", typ: tar.TypeLink},
		member{name: "workspace/keep2", link: "workspace/keep.txt", typ: tar.TypeLink},
		member{name: "mnt/data/", typ: tar.TypeDir},
		member{name: "mnt/data/object", body: "o", typ: tar.TypeReg},
		member{name: "etc/hosts", body: "", typ: tar.TypeReg},
		member{name: "dev/console", typ: tar.TypeChar},
		member{name: "bin/sh", link: "/bin/busybox", typ: tar.TypeSymlink},
	)
	var out bytes.Buffer
	f := rootfsFilter{Drop: []string{"/workspace/secrets"}, MountPoints: []string{"/mnt/data", "/etc/hosts", "/dev"}}
	st, err := f.filter(context.Background(), in, &out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(names(t, &out), " ")
	want := "opt/tool/bin/x workspace/keep.txt workspace/keep2 mnt/data/ bin/sh"
	if got != want || st.Files != 2 || st.Dropped != 5 {
		t.Fatalf("got %q (%+v), want %q", got, st, want)
	}
}

func TestRootfsFilterRefuses(t *testing.T) {
	cases := map[string]struct {
		in   []member
		f    rootfsFilter
		want string
	}{
		"dotdot":    {[]member{{name: "a/../../etc/x", body: "x", typ: tar.TypeReg}}, rootfsFilter{}, ".. segment"},
		"link out":  {[]member{{name: "a", link: "../x", typ: tar.TypeLink}}, rootfsFilter{}, ".. segment"},
		"files":     {[]member{{name: "a", typ: tar.TypeDir}, {name: "b", typ: tar.TypeDir}}, rootfsFilter{Limits: sandbox.OutputLimits{MaxFiles: 1}}, "max_files"},
		"bytes":     {[]member{{name: "a", body: "12345", typ: tar.TypeReg}}, rootfsFilter{Limits: sandbox.OutputLimits{MaxBytes: 4}}, "max_bytes"},
		"long name": {[]member{{name: strings.Repeat("a/", 2100), typ: tar.TypeDir}}, rootfsFilter{}, "too long"},
		"secret": {[]member{{name: "home/u/.history", body: "curl -H token-0123456789", typ: tar.TypeReg}},
			rootfsFilter{WriteOnly: []redact.WriteOnlyValue{{Attr: "sandbox_workspace.environment_wo", Value: []byte("token-0123456789")}}},
			"/home/u/.history holds the value of the write-only attribute sandbox_workspace.environment_wo"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := c.f.filter(context.Background(), exported(t, c.in...), io.Discard)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "token-0123456789") {
				t.Fatalf("the error holds the value: %v", err)
			}
		})
	}
}

func TestImageSettingsChanges(t *testing.T) {
	got := imageSettings{Env: []string{"PATH=/usr/bin:/bin", `Q=a "b" $HOME`}, Cmd: []string{"sh", "-c", "echo hi"},
		WorkingDir: "/workspace", User: "1000", ExposedPorts: map[string]struct{}{"8080/tcp": {}},
		Labels: map[string]string{"sandbox.snapshot_id": "abc"}}.changes()
	want := []string{`ENV PATH="/usr/bin:/bin"`, `ENV Q="a \"b\" \$HOME"`, `CMD ["sh","-c","echo hi"]`, `WORKDIR "/workspace"`,
		`USER "1000"`, `EXPOSE 8080/tcp`, `LABEL "sandbox.snapshot_id"="abc"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
