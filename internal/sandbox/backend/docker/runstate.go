package docker

import (
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/spec"

	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

func healthConfig(h *spec.Healthcheck) *container.HealthConfig {
	if h == nil {
		return nil
	}
	return &container.HealthConfig{Test: h.Test, Interval: h.Interval, Timeout: h.Timeout, StartPeriod: h.StartPeriod, Retries: h.Retries}
}

func healthcheckOf(c *container.HealthConfig) *spec.Healthcheck {
	if c == nil || len(c.Test) == 0 {
		return nil
	}
	return &spec.Healthcheck{Test: c.Test, Interval: c.Interval, Timeout: c.Timeout, StartPeriod: c.StartPeriod, Retries: c.Retries}
}

// StopGrace is how long a stop waits after SIGTERM before the daemon kills
// what still runs in the container.
const StopGrace = 3 * time.Second

// Stop stops the container (SIGTERM, then SIGKILL after StopGrace); a
// paused container is unpaused first, as Docker stops only running ones.
// A stopped container is left as it is.
func (b *Backend) Stop(ctx context.Context) error {
	defer b.changed()
	c, err := b.state(ctx)
	if err != nil {
		return err
	}
	cli, err := b.d.api()
	if err != nil {
		return err
	}
	if c.Paused {
		if _, err := cli.ContainerUnpause(ctx, b.id, client.ContainerUnpauseOptions{}); err != nil {
			return fmt.Errorf("unpausing container %s to stop it: %w", short(b.id), err)
		}
	}
	if !c.Running {
		return nil
	}
	grace := int(StopGrace / time.Second)
	if _, err := cli.ContainerStop(ctx, b.id, client.ContainerStopOptions{Timeout: &grace}); err != nil {
		return fmt.Errorf("stopping container %s: %w", short(b.id), err)
	}
	return nil
}

// Pause freezes every process of the container (docker pause); a stopped
// container is started first, as Docker pauses only running ones.
func (b *Backend) Pause(ctx context.Context) error {
	defer b.changed()
	c, err := b.state(ctx)
	if err != nil {
		return err
	}
	if c.Paused {
		return nil
	}
	cli, err := b.d.api()
	if err != nil {
		return err
	}
	if !c.Running {
		if _, err := cli.ContainerStart(ctx, b.id, client.ContainerStartOptions{}); err != nil {
			return fmt.Errorf("starting container %s to pause it: %w", short(b.id), err)
		}
	}
	if _, err := cli.ContainerPause(ctx, b.id, client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("pausing container %s: %w", short(b.id), err)
	}
	return nil
}

// state inspects the container afresh.
func (b *Backend) state(ctx context.Context) (*container.State, error) {
	c, ok, err := b.d.inspect(ctx, b.id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("container %s no longer exists", short(b.id))
	}
	if c.State == nil {
		return &container.State{}, nil
	}
	return c.State, nil
}

// ErrUnhealthy is wrapped when a container's health check does not pass.
var ErrUnhealthy = errors.New("the container's health check did not pass")

// healthPoll is how often WaitHealthy inspects the container.
const healthPoll = 250 * time.Millisecond

// WaitHealthy waits until the container's health check reports it healthy.
// It fails, wrapping ErrUnhealthy, as soon as Docker reports it unhealthy
// (its retries failed in a row after the start period), when the container
// stops, or when ctx ends; the error holds the last results of the check,
// bounded (they come from inside the container).
func (b *Backend) WaitHealthy(ctx context.Context) error {
	start := time.Now()
	var last *container.Health
	for {
		c, err := b.state(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return b.unhealthy(fmt.Sprintf("not healthy after %s", time.Since(start).Round(time.Second)), last)
			}
			return err
		}
		last = c.Health
		switch {
		case last == nil:
			return fmt.Errorf("container %s has no health check to wait for", short(b.id))
		case last.Status == container.Healthy:
			return nil
		case last.Status == container.Unhealthy:
			return b.unhealthy(fmt.Sprintf("reported unhealthy after %s (%d failures in a row)",
				time.Since(start).Round(time.Second), last.FailingStreak), last)
		case !c.Running:
			return b.unhealthy("stopped before it was healthy", last)
		}
		select {
		case <-ctx.Done():
			return b.unhealthy(fmt.Sprintf("not healthy after %s", time.Since(start).Round(time.Second)), last)
		case <-time.After(healthPoll):
		}
	}
}

// Health-log bounds: the last results, each output clipped.
const (
	healthLogResults = 3
	healthLogBytes   = 512
)

func (b *Backend) unhealthy(why string, h *container.Health) error {
	var sb strings.Builder
	if h != nil {
		logs := h.Log
		if len(logs) > healthLogResults {
			logs = logs[len(logs)-healthLogResults:]
		}
		for _, r := range logs {
			if r == nil {
				continue
			}
			fmt.Fprintf(&sb, "\n  exit %d: %s", r.ExitCode, clipUntrusted(r.Output, healthLogBytes))
		}
	}
	if sb.Len() == 0 {
		sb.WriteString("\n  (no result of the check yet)")
	}
	return fmt.Errorf("%w: container %s %s; last results of the check:%s", ErrUnhealthy, short(b.id), why, sb.String())
}

// clipUntrusted makes text printed inside a container safe to show: at
// most n bytes, control characters and invalid UTF-8 escaped.
func clipUntrusted(s string, n int) string {
	s = strings.TrimSpace(s)
	more := ""
	if len(s) > n {
		s, more = s[:n], "..."
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			sb.WriteString(" ")
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&sb, "\\u%04x", r)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String() + more
}
