package backend

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ProbeTimeout bounds one ProbePort attempt.
const ProbeTimeout = 5 * time.Second

// Prober is implemented by backends that can probe a port of the workspace
// from inside it (a service's readiness): kind "tcp" connects to
// 127.0.0.1:port, kind "http" sends GET path there and wants a 2xx or 3xx
// status. A nil error means ready; every probe is bounded in time.
type Prober interface {
	Probe(ctx context.Context, kind string, port int, path string) error
}

// ProbePort is one readiness probe against 127.0.0.1 (see Prober).
func ProbePort(ctx context.Context, kind string, port int, path string) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	switch kind {
	case "tcp":
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	case "http":
		if !strings.HasPrefix(path, "/") {
			return fmt.Errorf("usage: path %q must start with /", path)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
		if err != nil {
			return err
		}
		client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 399 {
			return fmt.Errorf("GET %s answered %s", path, resp.Status)
		}
		return nil
	}
	return fmt.Errorf("usage: unknown probe %q (want tcp or http)", kind)
}
