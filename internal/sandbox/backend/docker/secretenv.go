package docker

import (
	"context"
	"encoding/json"
	"strings"
)

// SecretEnvironment returns the values of the container's secret
// environment variables (Spec.SecretEnvironment, named in LabelSpec), so
// that they can be redacted from what commands run in the container print.
// A container without the label, or that no longer exists, has none.
func (b *Backend) SecretEnvironment(ctx context.Context) ([]string, error) {
	c, ok, err := b.inspect(ctx)
	if err != nil || !ok || c.Config == nil {
		return nil, err
	}
	var l specLabel
	if json.Unmarshal([]byte(c.Config.Labels[LabelSpec]), &l) != nil || len(l.SecretEnvironment) == 0 {
		return nil, nil //nolint:nilerr // a container without a readable spec label has no secret environment
	}
	secret := map[string]bool{}
	for _, k := range l.SecretEnvironment {
		secret[k] = true
	}
	var out []string
	for _, kv := range c.Config.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && secret[k] && v != "" {
			out = append(out, v)
		}
	}
	return out, nil
}
