package docker

import (
	"errors"
	"path"

	"github.com/moby/moby/api/types/container"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
)

// Labels recording a workspace container's expiry (Spec.Expiry); they are
// read back on refresh and import, and by anything listing workspaces.
const (
	LabelExpiresAt = "sandbox.expires_at" // RFC 3339, UTC
	LabelLifetime  = "sandbox.lifetime"   // as configured ("2h")
	LabelOnExpiry  = "sandbox.on_expiry"  // "stop" or "remove"
)

// errExpiryRestart refuses auto-removal with a restart policy, which the
// daemon itself refuses for AutoRemove.
var errExpiryRestart = errors.New(`on_expiry = "remove" cannot be combined with a restart_policy other than "no": ` +
	`the Docker daemon refuses to auto-remove a container it would restart`)

func (s Spec) validateExpiry() error {
	if s.Expiry.Remove() && s.RestartPolicy != "" && s.RestartPolicy != "no" {
		return errExpiryRestart
	}
	return nil
}

// applyExpiry makes a container with an expiry stop by itself at its
// deadline: its keep-alive is the file helper's OpKeepAlive, which exits
// then (and at once when started again later), instead of tail; with
// on_expiry "remove" the daemon removes the container once it has stopped
// (AutoRemove). The helper volume is mounted before the container starts,
// so the image needs no tool of its own. The expiry is recorded in labels.
func applyExpiry(s Spec, cfg *container.Config, hc *container.HostConfig) {
	if s.Expiry.IsZero() || s.helperDigest == "" {
		return
	}
	cfg.Labels[LabelExpiresAt] = s.Expiry.String()
	cfg.Labels[LabelLifetime] = s.Expiry.Lifetime
	cfg.Labels[LabelOnExpiry] = s.Expiry.OnExpiry
	cfg.Entrypoint = []string{path.Join(fshelper.HelperDir, s.helperDigest, fshelper.HelperName)}
	cfg.Cmd = []string{fshelper.OpKeepAlive, s.Expiry.String()}
	hc.AutoRemove = s.Expiry.Remove()
}

// expiryOf reads the expiry a container's labels record (zero when none,
// or when they do not parse: a label edited by hand is not trusted to move
// a deadline).
func expiryOf(labels map[string]string) sandbox.Expiry {
	x, err := sandbox.ParseExpiry(labels[LabelLifetime], labels[LabelOnExpiry], labels[LabelExpiresAt])
	if err != nil {
		return sandbox.Expiry{}
	}
	return x
}

// expiryLabel reports whether k is one of the expiry labels, which are the
// provider's own, not the user's labels.
func expiryLabel(k string) bool {
	return k == LabelExpiresAt || k == LabelLifetime || k == LabelOnExpiry
}
