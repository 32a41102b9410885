package sandbox

import (
	"strings"
	"testing"
	"time"
)

func TestParseLifetime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"20s", 20 * time.Second, ""},
		{"2h30m", 150 * time.Minute, ""},
		{"0s", 0, "must be positive"},
		{"-5m", 0, "must be positive"},
		{"500ms", 0, "less than a second"},
		{"soon", 0, "is not a duration"},
		{"", 0, "is not a duration"},
		{"100000h", 0, "more than ten years"},
	} {
		got, err := ParseLifetime(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseLifetime(%q) = %v, %v; want %v", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseLifetime(%q) error %v; want one containing %q", c.in, err, c.err)
		}
	}
}

func TestNewExpiry(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 250_000_000, time.FixedZone("X", 3600))
	x, err := NewExpiry(now, "90s", "")
	if err != nil {
		t.Fatal(err)
	}
	// 02:04:05.25 UTC + 90 s = 02:05:35.25, rounded up to the next second.
	if got := x.String(); got != "2026-01-02T02:05:36Z" || x.OnExpiry != OnExpiryStop || x.Lifetime != "90s" {
		t.Fatalf("NewExpiry = %+v (%s)", x, got)
	}
	if x.Expired(now) || !x.Expired(time.Date(2026, 1, 2, 2, 5, 36, 0, time.UTC)) {
		t.Fatal("Expired is wrong around the deadline")
	}
	if x, err := NewExpiry(now, "", ""); err != nil || !x.IsZero() {
		t.Fatalf("no lifetime: %+v, %v", x, err)
	}
	if _, err := NewExpiry(now, "1h", "delete"); err == nil {
		t.Fatal("on_expiry \"delete\" accepted")
	}
	back, err := ParseExpiry("90s", "remove", "2026-01-02T02:05:36Z")
	if err != nil || !back.Remove() || !back.ExpiresAt.Equal(x.ExpiresAt) {
		t.Fatalf("ParseExpiry = %+v, %v", back, err)
	}
}
