package sandbox

import (
	"errors"
	"fmt"
	"time"
)

// What happens to a workspace at its expiry (Expiry.OnExpiry).
const (
	OnExpiryStop   = "stop"   // the workspace stops and stays, stopped (the default)
	OnExpiryRemove = "remove" // the workspace is removed
)

// Expiry is a workspace's lifetime: at ExpiresAt its backend stops or
// removes it, without Terraform running. The zero value is no expiry.
type Expiry struct {
	// Lifetime is the configured duration as written ("2h"), for import.
	Lifetime string
	// OnExpiry is OnExpiryStop or OnExpiryRemove ("" means stop).
	OnExpiry string
	// ExpiresAt is the deadline, UTC, whole seconds.
	ExpiresAt time.Time
}

// IsZero reports whether there is no expiry.
func (x Expiry) IsZero() bool { return x.ExpiresAt.IsZero() }

// Remove reports whether the workspace is removed at its expiry.
func (x Expiry) Remove() bool { return x.OnExpiry == OnExpiryRemove }

// String is ExpiresAt in RFC 3339, UTC ("" for no expiry).
func (x Expiry) String() string {
	if x.IsZero() {
		return ""
	}
	return FormatExpiresAt(x.ExpiresAt)
}

// Expired reports whether the deadline has passed at now.
func (x Expiry) Expired(now time.Time) bool { return !x.IsZero() && !now.Before(x.ExpiresAt) }

// FormatExpiresAt writes a deadline as RFC 3339 in UTC.
func FormatExpiresAt(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// NewExpiry is the expiry of a workspace created at now with the given
// lifetime (ParseLifetime's form) and on_expiry ("" for stop); a "" lifetime
// is no expiry. The deadline is rounded up to a whole second.
func NewExpiry(now time.Time, lifetime, onExpiry string) (Expiry, error) {
	if lifetime == "" {
		return Expiry{}, nil
	}
	d, err := ParseLifetime(lifetime)
	if err != nil {
		return Expiry{}, err
	}
	if err := CheckOnExpiry(onExpiry); err != nil {
		return Expiry{}, err
	}
	if onExpiry == "" {
		onExpiry = OnExpiryStop
	}
	at := now.UTC().Add(d)
	if t := at.Truncate(time.Second); !t.Equal(at) {
		at = t.Add(time.Second)
	}
	return Expiry{Lifetime: lifetime, OnExpiry: onExpiry, ExpiresAt: at}, nil
}

// ParseExpiry reads an expiry back from what a workspace records (labels,
// annotations, marker): expiresAt in RFC 3339; "" is no expiry.
func ParseExpiry(lifetime, onExpiry, expiresAt string) (Expiry, error) {
	if expiresAt == "" {
		return Expiry{}, nil
	}
	t, err := time.Parse(time.RFC3339, expiresAt)
	if err != nil {
		return Expiry{}, fmt.Errorf("expires_at %q is not an RFC 3339 time: %w", expiresAt, err)
	}
	if onExpiry == "" {
		onExpiry = OnExpiryStop
	}
	return Expiry{Lifetime: lifetime, OnExpiry: onExpiry, ExpiresAt: t.UTC()}, nil
}

// MaxLifetime bounds a lifetime (a pod's activeDeadlineSeconds and a
// deadline's arithmetic stay far from overflow).
const MaxLifetime = 10 * 365 * 24 * time.Hour

// ParseLifetime reads a lifetime, a Go duration such as "90s", "20m" or
// "2h30m": positive, whole seconds at least one, at most MaxLifetime.
func ParseLifetime(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("lifetime %q is not a duration such as \"90s\", \"20m\" or \"2h\" (units ns, us, ms, s, m, h)", s)
	case d <= 0:
		return 0, fmt.Errorf("lifetime %q must be positive", s)
	case d < time.Second:
		return 0, fmt.Errorf("lifetime %q is less than a second", s)
	case d > MaxLifetime:
		return 0, fmt.Errorf("lifetime %q is more than ten years", s)
	}
	return d, nil
}

// ErrOnExpiry is wrapped by CheckOnExpiry.
var ErrOnExpiry = errors.New(`on_expiry must be "stop" or "remove"`)

// CheckOnExpiry accepts "", OnExpiryStop and OnExpiryRemove.
func CheckOnExpiry(s string) error {
	switch s {
	case "", OnExpiryStop, OnExpiryRemove:
		return nil
	}
	return fmt.Errorf("%w, not %q", ErrOnExpiry, s)
}
