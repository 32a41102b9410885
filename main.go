// Command terraform-provider-sandbox serves the sandbox provider over the
// Terraform plugin protocol version 6.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/provider"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/fshelper"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

func main() {
	if fshelper.Invoked(os.Args) {
		os.Exit(fshelper.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers such as delve; prints TF_REATTACH_PROVIDERS to use")
	flag.Parse()

	limitFrameworkLogs()
	stopProfile := startProfile()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   debug,
	})
	stopProfile()
	if err != nil {
		log.Fatal(err.Error())
	}
}
