// Command dockercount is a counting proxy in front of a Docker daemon's
// socket, for make bench: a provider pointed at it (DOCKER_HOST) makes its
// requests through it, and `GET /_count` on it (not forwarded) answers how
// many it has forwarded so far (`GET /_routes`: how many of each route). Exec attach and other upgraded connections
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
	"regexp"
	"sync"
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
	var mu sync.Mutex
	routes := map[string]int{}
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
		switch r.URL.Path {
		case "/_count":
			fmt.Fprintln(w, n.Load())
			return
		case "/_routes":
			mu.Lock()
			for k, v := range routes {
				fmt.Fprintf(w, "%d %s\n", v, k)
			}
			mu.Unlock()
			return
		}
		n.Add(1)
		mu.Lock()
		routes[r.Method+" "+route(r.URL.Path)]++
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	})}
	if err := srv.Serve(l); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

var (
	versionPrefix = regexp.MustCompile(`^/v[0-9.]+/`)
	idSegment     = regexp.MustCompile(`/[0-9a-f]{12,64}(/|$)`)
)

// route is a request path without its API version and with ids as {id}.
func route(p string) string {
	p = versionPrefix.ReplaceAllString(p, "/")
	return idSegment.ReplaceAllString(p, "/{id}$1")
}
