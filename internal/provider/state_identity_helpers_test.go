package provider

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// exitCode runs one command like run and returns its exit code.
func (c *cliRun) exitCode(logName string, args ...string) int {
	c.t.Helper()
	saved := c.mustSucceed
	c.mustSucceed = false
	defer func() { c.mustSucceed = saved }()
	c.run(logName, args...)
	return c.lastCode
}

// pluginBinary is the provider binary the CLI runs.
func (c *cliRun) pluginBinary() string { return c.plugin }

// tfState is a state file, read for its resources' attributes.
type tfState struct {
	Resources []struct {
		Type      string `json:"type"`
		Name      string `json:"name"`
		Instances []struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"instances"`
	} `json:"resources"`
}

func readState(t *testing.T, p string) tfState {
	t.Helper()
	b, err := os.ReadFile(p)
	must(t, err)
	var st tfState
	must(t, json.Unmarshal(b, &st))
	return st
}

// attr returns a string attribute of resource addr ("type.name").
func (s tfState) attr(t *testing.T, addr, name string) string {
	t.Helper()
	for _, r := range s.Resources {
		if r.Type+"."+r.Name == addr && len(r.Instances) == 1 {
			v, _ := r.Instances[0].Attributes[name].(string)
			return v
		}
	}
	t.Fatalf("no %s in state", addr)
	return ""
}

// exitStatus is the exit code of a finished command's error (0 for nil).
func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// requiredSandbox is the terraform block of configurations run with the
// real CLI through dev_overrides (no terraform init needed).
const requiredSandbox = `
terraform {
  required_providers {
    sandbox = { source = "agentsandbox/sandbox" }
  }
}
`

// jsonObj, jsonArr and jsonStr take a decoded JSON value apart, failing
// the test when it has another shape.
func jsonObj(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("expected a JSON object, got %T", v)
	}
	return m
}

func jsonArr(t *testing.T, v any) []any {
	t.Helper()
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		t.Fatalf("expected a non-empty JSON array, got %T", v)
	}
	return a
}

func jsonStr(t *testing.T, v any) string {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("expected a JSON string, got %T", v)
	}
	return s
}
