//go:build tools

// Package tools pins the development tools used by the GNUmakefile, so that
// `go run` builds the same versions on every machine.
package tools

import (
	_ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
	_ "github.com/goreleaser/goreleaser/v2"
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
	_ "github.com/opentofu/opentofu/cmd/tofu"
)
