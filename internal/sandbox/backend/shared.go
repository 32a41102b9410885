package backend

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

// SharedReads lets concurrent reads of one object share one request: when
// Terraform refreshes the N entries of a workspace at once, each opens the
// workspace, and N inspects of one container (or GETs of one pod) become
// the few that overlap in time. A read joins only one that started after
// the last Changed, so what this process changed is always read afresh.
// The zero value is ready to use.
type SharedReads struct {
	g   singleflight.Group
	gen atomic.Int64

	mu   sync.Mutex
	last map[string]lastRead
}

// lastRead is a finished read kept for SharedFresh.
type lastRead struct {
	gen int64
	at  time.Time
	v   any
}

// RecentRead is how old a lookup of a container or pod may be to answer
// the open of a workspace for one of its entries (SharedFresh).
const RecentRead = 2 * time.Second

// SharedReadTimeout bounds a shared read, which no single caller's
// cancellation ends.
const SharedReadTimeout = 2 * time.Minute

// Changed says that this process has just changed an object: reads that
// start from now on do not join one in flight.
func (s *SharedReads) Changed() { s.gen.Add(1) }

// Shared runs read for key, or waits for the same key's read in flight;
// a caller whose context ends stops waiting, the read goes on for the
// others.
func Shared[T any](ctx context.Context, s *SharedReads, key string, read func(context.Context) (T, error)) (T, error) {
	k := strconv.FormatInt(s.gen.Load(), 10) + "/" + key
	ch := s.g.DoChan(k, func() (any, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SharedReadTimeout)
		defer cancel()
		return read(rctx)
	})
	var zero T
	select {
	case r := <-ch:
		if r.Err != nil {
			return zero, r.Err
		}
		v, _ := r.Val.(T)
		return v, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// SharedFresh is Shared that also answers from a read of key that
// finished less than maxAge ago, when this process has changed nothing
// since: Terraform reads the workspace once per resource, the workspace
// and each of its entries, one after the other, and a container or pod
// does not change between them unless someone changes it.
func SharedFresh[T any](ctx context.Context, s *SharedReads, key string, maxAge time.Duration, read func(context.Context) (T, error)) (T, error) {
	gen := s.gen.Load()
	s.mu.Lock()
	l, ok := s.last[key]
	s.mu.Unlock()
	if ok && l.gen == gen && time.Since(l.at) < maxAge {
		if v, ok := l.v.(T); ok {
			return v, nil
		}
	}
	v, err := Shared(ctx, s, key, read)
	if err == nil {
		s.mu.Lock()
		if s.last == nil {
			s.last = map[string]lastRead{}
		}
		if s.gen.Load() == gen {
			s.last[key] = lastRead{gen: gen, at: time.Now(), v: v}
		}
		s.mu.Unlock()
	}
	return v, err
}
