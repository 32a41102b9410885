// Command dockercount is a counting proxy in front of a Docker daemon's
// socket, for make bench: a provider pointed at it (DOCKER_HOST) makes its
// requests through it, and `GET /_count` on it (not forwarded) answers how
// many it has forwarded so far. Exec attach and other upgraded connections
// pass through whole.
//
// Usage: dockercount LISTEN_SOCKET UPSTREAM_SOCKET
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: dockercount LISTEN_SOCKET UPSTREAM_SOCKET")
		os.Exit(2)
	}
	listen, upstream := os.Args[1], os.Args[2]
	var n atomic.Int64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = "http", "docker"
			r.Out.Host = r.In.Host
		},
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", upstream)
		}},
		FlushInterval: -1,
	}
	_ = os.Remove(listen)
	l, err := net.Listen("unix", listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{ReadHeaderTimeout: time.Minute, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_count" {
			fmt.Fprintln(w, n.Load())
			return
		}
		n.Add(1)
		proxy.ServeHTTP(w, r)
	})}
	if err := srv.Serve(l); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
