package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccMount_planTimeRefusals proves that bad mounts fail the plan, with
// the Python SDK's messages, on the attribute at fault, and that nothing is
// touched: the workspace directory is never created.
func TestAccMount_planTimeRefusals(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	cases := []struct {
		name, body string
		want       string
	}{
		{"pattern not supported", `
resource "sandbox_r2_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  account_id = "acct"
  in_container {
    mountpoint {}
  }
}`, `(?s)invalid mount_pattern type.*r2_mount supports in_container patterns .rclone.; Docker volume drivers .rclone.`},
		{"driver not supported", `
resource "sandbox_s3_files_mount" "m" {
  path = "data"
  file_system_id = "fs-1234567890abcdef0"
  docker_volume {
    driver = "rclone"
  }
}`, `(?s)invalid Docker volume driver.*s3_files_mount supports in_container patterns .s3files.; no Docker volume driver`},
		{"partial key set", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  access_key_id_wo = "AKIDEXAMPLE"
  in_container {
    rclone {}
  }
}`, `(?s)in-container access credentials require a complete non-empty credential set.*attribute: secret_access_key_wo`},
		{"blank secret", `
resource "sandbox_azure_blob_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  account = "acct"
  container = "c"
  account_key_wo = "   "
  in_container {
    rclone {}
  }
}`, `(?s)must not be empty or whitespace-only.*attribute: account_key_wo`},
		{"line break in a plain value", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  s3_provider = "AWS\naccess_key_id = injected"
  in_container {
    rclone {}
  }
}`, `(?s)s3_provider.*must not contain line breaks`},
		{"line break in a secret", `
resource "sandbox_r2_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  account_id = "acct"
  access_key_id_wo = "k"
  secret_access_key_wo = "s\nendpoint = https://evil.test"
  in_container {
    rclone {}
  }
}`, `(?s)must not contain line breaks.*attribute: secret_access_key_wo`},
		{"rclone --config argument", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  in_container {
    rclone {
      extra_args = ["--config=/workspace/credentials.conf"]
    }
  }
}`, `(?s)does not support exposing the configured credential fields.*attribute: in_container.rclone.extra_args`},
		{"endpoint with user info", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  in_container {
    mountpoint {
      endpoint_url = "https://user:pattern-secret@example.test"
    }
  }
}`, `(?s)does not support exposing the configured credential fields.*attribute: in_container.mountpoint.endpoint_url`},
		{"credential file inside the workspace", `
resource "sandbox_gcs_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  service_account_file = "keys/gcs.json"
  in_container {
    rclone {}
  }
}`, `(?s)credential files stored in the manifest are not supported.*attribute: service_account_file`},
		{"box without a non-interactive source", `
resource "sandbox_box_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  client_id = "id"
  in_container {
    rclone {}
  }
}`, `in-container Box mounts require a non-interactive authentication source`},
		{"in_container without a workspace", `
resource "sandbox_s3_mount" "m" {
  path = "data"
  bucket = "b"
  in_container {
    rclone {}
  }
}`, `(?s)Missing workspace_id.*set workspace_id`},
		{"docker_volume with a workspace", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  docker_volume {
    driver = "rclone"
  }
}`, `(?s)workspace_id.*belongs to no workspace yet`},
		{"no strategy", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
}`, `Missing mount strategy`},
		{"two patterns", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  bucket = "b"
  in_container {
    rclone {}
    mountpoint {}
  }
}`, `(?s)in_container.*exactly one pattern block`},
		{"windows mount_path", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  mount_path = "C:\\data"
  bucket = "b"
  in_container {
    rclone {}
  }
}`, `(?s)mount_path.*absolute`},
		{"blobfuse cache outside the root", `
resource "sandbox_azure_blob_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "data"
  account = "acct"
  container = "c"
  in_container {
    fuse {
      cache_path = "/tmp/blobfuse-cache"
    }
  }
}`, `(?s)blobfuse cache_path must be relative to the workspace root.*attribute: in_container.fuse.cache_path`},
		{"escaping path", `
resource "sandbox_s3_mount" "m" {
  workspace_id = sandbox_workspace.ws.id
  path = "../data"
  bucket = "b"
  in_container {
    rclone {}
  }
}`, `(?s)path.*escape`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		steps = append(steps, resource.TestStep{
			Config:      env.config(c.body),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(strings.ReplaceAll(c.want, " ", `\s+`)), // Terraform wraps long lines
		})
	}
	t.Run("cases", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6Factories,
			TerraformVersionChecks:   requireTF111,
			Steps:                    steps,
		})
	})
	if entries, err := os.ReadDir(env.base); err == nil && len(entries) > 0 {
		t.Fatalf("a refused plan touched the disk: %s holds %v", env.base, entries)
	}
	if _, err := os.Stat(filepath.Join(env.base, ".workspaces")); err == nil {
		t.Fatalf("a refused plan registered a workspace")
	}
}
