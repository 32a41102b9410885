// Command terraform-provider-sandbox serves the sandbox provider over the
// Terraform plugin protocol version 6.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/provider"
	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox/backend/fshelper"
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
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// The write-only values of resource configurations are remembered for
	// the secret gate of snapshots and exports (provider.NewProtocol6Server).
	err := tf6server.Serve(provider.Address, provider.ServeProtocol6(version), opts...)
	stopProfile()
	if err != nil {
		log.Fatal(err.Error())
	}
}
