// Package volplugin is a Docker volume plugin for tests: it serves the
// legacy volume plugin protocol on /run/docker/plugins/<name>.sock,
// records the driver options of every volume created with it, and mounts
// each volume as a plain host directory. It lets a test prove which driver
// options a daemon received without a real storage service behind them.
package volplugin

import (
	"encoding/json"
	"errors"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// SocketDir is where the Docker daemon looks for legacy plugin sockets.
const SocketDir = "/run/docker/plugins"

// Plugin is a running fake volume driver.
type Plugin struct {
	// Name is the driver name volumes are created with.
	Name string
	dir  string

	mu      sync.Mutex
	volumes map[string]map[string]string
}

// Start serves a volume driver called name until the test ends. It needs
// root (the socket directory belongs to the daemon). Two plugins of one
// name must not run at once.
func Start(t testing.TB, name string) *Plugin {
	t.Helper()
	if err := os.MkdirAll(SocketDir, 0o755); err != nil {
		t.Fatalf("volplugin: %v", err)
	}
	Lock(t, name)
	sock := filepath.Join(SocketDir, name+".sock")
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("volplugin: listening on %s: %v", sock, err)
	}
	p := &Plugin{Name: name, dir: t.TempDir(), volumes: map[string]map[string]string{}}
	srv := &http.Server{Handler: p.handler()}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		_ = os.Remove(sock)
	})
	return p
}

// Options returns the driver options volume name was created with, and
// whether it exists.
func (p *Plugin) Options(name string) (map[string]string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	o, ok := p.volumes[name]
	return maps.Clone(o), ok
}

// Names lists the volumes that exist.
func (p *Plugin) Names() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for n := range p.volumes {
		out = append(out, n)
	}
	return out
}

type request struct {
	Name string
	Opts map[string]string
}

func (p *Plugin) handler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/vnd.docker.plugins.v1.2+json")
		_ = json.NewEncoder(w).Encode(v)
	}
	read := func(r *http.Request) request {
		var req request
		_ = json.NewDecoder(r.Body).Decode(&req)
		return req
	}
	mux.HandleFunc("/Plugin.Activate", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"Implements": []string{"VolumeDriver"}})
	})
	mux.HandleFunc("/VolumeDriver.Capabilities", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]any{"Capabilities": map[string]string{"Scope": "local"}})
	})
	mux.HandleFunc("/VolumeDriver.Create", func(w http.ResponseWriter, r *http.Request) {
		req := read(r)
		p.mu.Lock()
		p.volumes[req.Name] = maps.Clone(req.Opts)
		p.mu.Unlock()
		reply(w, map[string]string{"Err": ""})
	})
	mux.HandleFunc("/VolumeDriver.Remove", func(w http.ResponseWriter, r *http.Request) {
		req := read(r)
		p.mu.Lock()
		delete(p.volumes, req.Name)
		p.mu.Unlock()
		_ = os.RemoveAll(filepath.Join(p.dir, req.Name))
		reply(w, map[string]string{"Err": ""})
	})
	mountpoint := func(w http.ResponseWriter, r *http.Request) {
		req := read(r)
		if _, ok := p.Options(req.Name); !ok {
			reply(w, map[string]string{"Err": "no such volume: " + req.Name})
			return
		}
		dir := filepath.Join(p.dir, req.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			reply(w, map[string]string{"Err": err.Error()})
			return
		}
		reply(w, map[string]string{"Mountpoint": dir, "Err": ""})
	}
	mux.HandleFunc("/VolumeDriver.Mount", mountpoint)
	mux.HandleFunc("/VolumeDriver.Path", mountpoint)
	mux.HandleFunc("/VolumeDriver.Unmount", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, map[string]string{"Err": ""})
	})
	mux.HandleFunc("/VolumeDriver.Get", func(w http.ResponseWriter, r *http.Request) {
		req := read(r)
		if _, ok := p.Options(req.Name); !ok {
			reply(w, map[string]string{"Err": "no such volume: " + req.Name})
			return
		}
		reply(w, map[string]any{"Volume": map[string]string{"Name": req.Name}, "Err": ""})
	})
	mux.HandleFunc("/VolumeDriver.List", func(w http.ResponseWriter, _ *http.Request) {
		var vols []map[string]string
		for _, n := range p.Names() {
			vols = append(vols, map[string]string{"Name": n})
		}
		reply(w, map[string]any{"Volumes": vols, "Err": ""})
	})
	return mux
}

// Lock holds, until the test ends, the lock every test that serves a
// volume plugin called name takes first, so test binaries of different
// packages run by one `go test ./...` never serve one socket at once.
func Lock(t testing.TB, name string) {
	t.Helper()
	if err := os.MkdirAll(SocketDir, 0o755); err != nil {
		t.Fatalf("volplugin: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(SocketDir, name+".test-lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("volplugin: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("volplugin: locking %s: %v", f.Name(), err)
	}
	t.Cleanup(func() { _ = f.Close() })
}

// ErrNoRoot is returned by Available when the process cannot create the
// plugin socket.
var ErrNoRoot = errors.New("a volume plugin socket needs root")

// Available reports whether this process may serve a plugin socket.
func Available() error {
	if os.Geteuid() != 0 {
		return ErrNoRoot
	}
	return nil
}
