package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// TestAccFile_contentDriftAlone: content changed out of band, nothing else
// (same size, same mode), plans an update that puts it back, for inline
// content and for content_base64: a plan whose configuration and state are
// unchanged still compares the content Read saw with the configured one.
func TestAccFile_contentDriftAlone(t *testing.T) {
	t.Parallel()
	for name, attrs := range map[string]string{
		"content":        `content = "hello\n"`,
		"content_base64": `content_base64 = "aGVsbG8K"`,
	} {
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(t)
			cfg := fileConfig(env, "app.conf", attrs+`
  permissions = "0644"`)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6Factories,
				Steps: []resource.TestStep{
					{Config: cfg, Check: checkWorkspaceFile(env, "app.conf", "hello\n", 0o644)},
					{
						PreConfig: func() {
							if err := os.WriteFile(filepath.Join(env.wsRoot(), "app.conf"), []byte("HELLO\n"), 0o644); err != nil {
								t.Fatal(err)
							}
						},
						Config: cfg,
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction("sandbox_file.f", plancheck.ResourceActionUpdate),
						}},
						Check: checkWorkspaceFile(env, "app.conf", "hello\n", 0o644),
					},
					{Config: cfg, PlanOnly: true},
				},
			})
		})
	}
}
