package main

import (
	"os"
	"strings"
)

// sdkLogLevels are the variables that set the log levels of the plugin
// framework's own lines (its "framework" subsystem) and of the protocol
// layer's (terraform-plugin-go's "proto" subsystem, a trace line or more
// per request).
var sdkLogLevels = []string{"TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"}

// limitFrameworkLogs sets the SDK's log levels to the level Terraform
// shows provider logs at (TF_LOG_PROVIDER, else TF_LOG; off when neither is
// set), each unless the user set it. Terraform drops provider
// log lines below that level anyway, so nothing visible changes; but the
// framework writes one trace line per value of every plan and state it
// walks, and each such line looks up its logger through a context that grows
// by one layer per value, so a 10,000-element map costs seconds of CPU per
// call when trace lines are built only to be dropped. The protocol layer's
// trace lines cost about a tenth of the provider's CPU in a plan of many
// small resources.
func limitFrameworkLogs() {
	level := os.Getenv("TF_LOG_PROVIDER")
	if level == "" {
		level = os.Getenv("TF_LOG")
	}
	switch strings.ToUpper(level) {
	case "":
		level = "OFF"
	case "JSON":
		level = "TRACE"
	}
	for _, v := range sdkLogLevels {
		if os.Getenv(v) == "" {
			_ = os.Setenv(v, level)
		}
	}
}
