package docker

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// RequestCounter counts the Docker API requests a client makes, by route
// ("POST /containers/{id}/exec"), so tests and benchmarks can bound the
// daemon round trips of an operation. Set HostConfig.Requests to one; the
// zero value is ready to use and safe for concurrent use.
type RequestCounter struct {
	mu      sync.Mutex
	byRoute map[string]int
	total   int
}

// Total returns the number of requests counted since the last Reset.
func (c *RequestCounter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Routes returns "<count>× <route>" lines, sorted by route.
func (c *RequestCounter) Routes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	routes := make([]string, 0, len(c.byRoute))
	for r := range c.byRoute {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	for i, r := range routes {
		routes[i] = fmt.Sprintf("%d× %s", c.byRoute[r], r)
	}
	return routes
}

// Reset forgets what was counted.
func (c *RequestCounter) Reset() {
	c.mu.Lock()
	c.byRoute, c.total = nil, 0
	c.mu.Unlock()
}

func (c *RequestCounter) add(method, path string) {
	if c == nil {
		return
	}
	r := method + " " + route(path)
	c.mu.Lock()
	if c.byRoute == nil {
		c.byRoute = map[string]int{}
	}
	c.byRoute[r]++
	c.total++
	c.mu.Unlock()
}

// hook is the client's request hook; it sees hijacked requests (exec
// attach) too.
func (c *RequestCounter) hook(req *http.Request) error {
	c.add(req.Method, req.URL.Path)
	return nil
}

var (
	apiVersion = regexp.MustCompile(`^/v[0-9.]+`)
	objectID   = regexp.MustCompile(`^/(containers|exec|images|volumes|networks)/[^/]+`)
)

// route is path without the API version and with object ids as {id}.
func route(path string) string {
	path = apiVersion.ReplaceAllString(path, "")
	if objectID.MatchString(path) && !strings.HasPrefix(path, "/containers/create") && !strings.HasPrefix(path, "/containers/json") &&
		!strings.HasPrefix(path, "/volumes/create") && !strings.HasPrefix(path, "/images/create") {
		path = objectID.ReplaceAllString(path, "/$1/{id}")
	}
	return path
}
