package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func outputTest(t *testing.T, expr string, want knownvalue.Check) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config:            fmt.Sprintf("output \"v\" {\n  value = %s\n}\n", expr),
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("v", want)},
		}},
	})
}

func errorTest(t *testing.T, expr, want string) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6Factories,
		TerraformVersionChecks:   requireTF111,
		Steps: []resource.TestStep{{
			Config:      fmt.Sprintf("output \"v\" {\n  value = %s\n}\n", expr),
			ExpectError: errRe(want),
		}},
	})
}

func TestAccFunction_parsePermissions(t *testing.T) {
	t.Parallel()
	outputTest(t, `provider::sandbox::parse_permissions("drwxr-x---")`, knownvalue.ObjectExact(map[string]knownvalue.Check{
		"owner": knownvalue.Int64Exact(7), "group": knownvalue.Int64Exact(5), "other": knownvalue.Int64Exact(0),
		"directory": knownvalue.Bool(true), "mode": knownvalue.Int64Exact(0o40750),
		"octal": knownvalue.StringExact("0750"), "string": knownvalue.StringExact("drwxr-x---"),
	}))
	outputTest(t, `provider::sandbox::parse_permissions("0640")`, knownvalue.ObjectExact(map[string]knownvalue.Check{
		"owner": knownvalue.Int64Exact(6), "group": knownvalue.Int64Exact(4), "other": knownvalue.Int64Exact(0),
		"directory": knownvalue.Bool(false), "mode": knownvalue.Int64Exact(0o640),
		"octal": knownvalue.StringExact("0640"), "string": knownvalue.StringExact("-rw-r-----"),
	}))
	// Special bits are read as plain execute bits, as the Python SDK.
	outputTest(t, `provider::sandbox::parse_permissions("-rwsr-xr-T").string`, knownvalue.StringExact("-rwxr-xr--"))
	errorTest(t, `provider::sandbox::parse_permissions("-rw-r--r-")`, `invalid permissions string length: '-rw-r--r-'`)
	errorTest(t, `provider::sandbox::parse_permissions("-rwtr--r--")`, `invalid exec flag: 'rwt'`)
}

func TestAccFunction_formatPermissions(t *testing.T) {
	t.Parallel()
	outputTest(t, `provider::sandbox::format_permissions(16877)`, knownvalue.StringExact("drwxr-xr-x"))
	outputTest(t, `provider::sandbox::format_permissions(parseint("100600", 8))`, knownvalue.StringExact("-rw-------"))
	outputTest(t, `provider::sandbox::format_permissions(parseint("4755", 8))`, knownvalue.StringExact("-rwxr-xr-x"))
	errorTest(t, `provider::sandbox::format_permissions(-1)`, `mode -1 is not a whole number from 0 to 4294967295`)
	errorTest(t, `provider::sandbox::format_permissions(1.5)`, `mode 1.5 is not a whole number`)
}

func TestAccFunction_endpointURL(t *testing.T) {
	t.Parallel()
	outputTest(t, `provider::sandbox::endpoint_url("127.0.0.1", 8765, false, "http", "")`, knownvalue.StringExact("http://127.0.0.1:8765/"))
	outputTest(t, `provider::sandbox::endpoint_url("preview.example.com", 443, true, "ws", "?token=abc")`, knownvalue.StringExact("wss://preview.example.com/?token=abc"))
	outputTest(t, `provider::sandbox::endpoint_url("::1", 80, false, "Ws", "")`, knownvalue.StringExact("ws://[::1]/"))
	outputTest(t, `provider::sandbox::endpoint_url("example.test", 80, true, "http", "??a=1")`, knownvalue.StringExact("https://example.test:80/??a=1"))
	errorTest(t, `provider::sandbox::endpoint_url("example.test", 80, true, "https", "")`, `scheme must be either 'http' or 'ws'`)
	errorTest(t, `provider::sandbox::endpoint_url("example.test", 0, false, "http", "")`, `port 0 is not a whole number from 1 to 65535`)
	errorTest(t, `provider::sandbox::endpoint_url("example.test", 80.5, false, "http", "")`, `port 80.5 is not a whole number`)
	errorTest(t, `provider::sandbox::endpoint_url("", 80, false, "http", "")`, `must be a host name or IP address`)
}

func TestAccFunction_workspacePath(t *testing.T) {
	t.Parallel()
	outputTest(t, `provider::sandbox::workspace_path("/workspace", "pkg\\file.py")`, knownvalue.StringExact("/workspace/pkg/file.py"))
	outputTest(t, `provider::sandbox::workspace_path("/workspace", "")`, knownvalue.StringExact("/workspace"))
	errorTest(t, `provider::sandbox::workspace_path("/workspace", "/etc/passwd")`, `manifest path must be relative: /etc/passwd (reason: absolute)`)
	errorTest(t, `provider::sandbox::workspace_path("/workspace", "a/../b")`, `manifest path must not escape root: a/../b (reason: escape_root)`)
	errorTest(t, `provider::sandbox::workspace_path("/workspace", "C:\\x")`, `manifest path must be relative: C:/x`)
	errorTest(t, `provider::sandbox::workspace_path("workspace", "a")`, `sandbox workspace root must be absolute`)
}
