package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/testutil/kubetest"
)

// The busybox httpd service of TestAccDockerService_httpd in a pod
// workspace: ready when the apply returns, restarted after an out-of-band
// kill, and gone (every process of it) after destroy.
func TestAccKubernetesService_httpd(t *testing.T) {
	env := newKubeEnv(t)
	run := func(s *terraform.State, script string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, stderr, err := kubetest.ExecIn(ctx, env.cfg, kubetest.WebSocket, env.ns, env.pod(s), kubetest.WorkspaceContainer, nil, "sh", "-c", script)
		if err != nil {
			return "", fmt.Errorf("exec in pod %s: %w: %s", env.pod(s), err, stderr)
		}
		return strings.TrimSpace(out), nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		CheckDestroy:             env.checkGone,
		Steps:                    serviceHTTPDSteps(func(body string) string { return env.config("", "", body) }, run),
	})
}
