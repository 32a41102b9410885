package sandbox

import (
	"strings"
	"testing"
)

func TestProcessEnvAllowlist(t *testing.T) {
	t.Setenv("TF_VAR_secret", "s3cret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "k3y")
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
	env := strings.Join(ProcessEnv([]string{"SSH_AUTH_SOCK"}, map[string]string{"HOME": "/ws", "X": "1"}), "\n") + "\n"
	for _, bad := range []string{"s3cret", "k3y"} {
		if strings.Contains(env, bad) {
			t.Errorf("ProcessEnv kept a secret:\n%s", env)
		}
	}
	for _, want := range []string{"LC_ALL=C.UTF-8\n", "SSH_AUTH_SOCK=/tmp/agent.sock\n", "HOME=/ws\n", "X=1\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("ProcessEnv lacks %q:\n%s", want, env)
		}
	}
	if strings.Count(env, "HOME=") != 1 {
		t.Errorf("HOME given twice:\n%s", env)
	}
}
