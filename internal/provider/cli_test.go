package provider

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// testCLI returns the CLI the acceptance tests run, chosen as the test
// framework chooses it: TF_ACC_TERRAFORM_PATH, else terraform on PATH.
func testCLI(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	p, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("no terraform on PATH and TF_ACC_TERRAFORM_PATH unset: %v", err)
	}
	return p
}

var cliVersionRe = regexp.MustCompile(`(?m)^(Terraform|OpenTofu) v\S+`)

// TestCLI_matchesProviderHost proves which CLI the suite runs against:
// TF_ACC_PROVIDER_HOST=registry.opentofu.org goes with OpenTofu, anything
// else with Terraform, so a run meant for one cannot quietly test the other.
func TestCLI_matchesProviderHost(t *testing.T) {
	cli := testCLI(t)
	out, err := exec.Command(cli, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s version: %v\n%s", cli, err, out)
	}
	m := cliVersionRe.FindSubmatch(out)
	if m == nil {
		t.Fatalf("%s version printed no Terraform or OpenTofu version:\n%s", cli, out)
	}
	want := "Terraform"
	if os.Getenv("TF_ACC_PROVIDER_HOST") == "registry.opentofu.org" {
		want = "OpenTofu"
	}
	if string(m[1]) != want {
		t.Fatalf("TF_ACC_PROVIDER_HOST=%q expects %s, but %s is %s", os.Getenv("TF_ACC_PROVIDER_HOST"), want, cli, m[0])
	}
	t.Logf("acceptance tests run %s (%s)", m[0], cli)
}
