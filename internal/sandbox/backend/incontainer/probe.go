package incontainer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// Probe runs the file helper's probe inside the container (see
// fshelper.OpProbe), so an image without any network tool can be probed.
func (w *Workspace) Probe(ctx context.Context, kind string, port int, path string) error {
	ctx, cancel := context.WithTimeout(ctx, backend.ProbeTimeout+10*time.Second)
	defer cancel()
	p, err := w.cache.ensure(ctx, w)
	if err != nil {
		return err
	}
	argv := []string{p, fshelper.OpProbe, kind, strconv.Itoa(port)}
	if kind == "http" {
		argv = append(argv, path)
	}
	res, err := w.r.Run(ctx, Proc{Argv: argv, User: "0:0", Limit: 4096})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		msg := strings.TrimSpace(strings.ToValidUTF8(string(res.Stderr), "?"))
		if msg == "" {
			msg = fmt.Sprintf("exit code %d", res.ExitCode)
		}
		return errors.New(msg)
	}
	return nil
}
