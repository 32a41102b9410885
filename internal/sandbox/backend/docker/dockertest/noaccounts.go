package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// NoAccountsImage is a second test image, built FROM scratch on first use
// with the Docker API from this machine's static busybox (nothing is
// pulled): every applet, /tmp, and no /etc/passwd nor /etc/group, as a
// static Go or distroless image has none.
const NoAccountsImage = "sandbox-test/no-accounts:latest"

var (
	noAccountsOnce sync.Once
	noAccountsErr  error
)

// RequireNoAccountsImage returns NoAccountsImage, building it when missing;
// it fails the test when it cannot (Require must have succeeded).
func RequireNoAccountsImage(t testing.TB) string {
	t.Helper()
	noAccountsOnce.Do(func() { noAccountsErr = buildNoAccounts() })
	if noAccountsErr != nil {
		t.Fatalf("building %s: %v", NoAccountsImage, noAccountsErr)
	}
	return NoAccountsImage
}

func buildNoAccounts() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := rawCli.ImageInspect(ctx, NoAccountsImage); err == nil {
		return nil
	}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return fmt.Errorf("no busybox on this machine: %w", err)
	}
	if !static(bb) {
		return fmt.Errorf("%s is not statically linked (install busybox-static)", bb)
	}
	bin, err := os.ReadFile(bb)
	if err != nil {
		return err
	}
	list, err := exec.Command(bb, "--list").Output()
	if err != nil {
		return fmt.Errorf("busybox --list: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range []struct {
		name string
		mode int64
	}{{"bin/", 0o755}, {"etc/", 0o755}, {"tmp/", 0o1777}} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d.name, Mode: d.mode}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(bin))}); err != nil {
		return err
	}
	if _, err := tw.Write(bin); err != nil {
		return err
	}
	for _, applet := range strings.Fields(string(list)) {
		if applet == "busybox" || strings.Contains(applet, "/") {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + applet, Linkname: "busybox", Mode: 0o777}); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	res, err := rawCli.ImageImport(ctx, client.ImageImportSource{Source: &buf, SourceName: "-"}, NoAccountsImage,
		client.ImageImportOptions{Changes: []string{"ENV PATH=/bin", `CMD ["/bin/sh"]`}})
	if err != nil {
		return err
	}
	defer res.Close()
	_, err = io.Copy(io.Discard, res)
	return err
}
