package main

import (
	"os"
	"strings"
)

// frameworkLogLevel is the variable that sets the plugin framework's own log
// level (its "framework" subsystem).
const frameworkLogLevel = "TF_LOG_SDK_FRAMEWORK"

// limitFrameworkLogs sets the framework's log level to the level Terraform
// shows provider logs at (TF_LOG_PROVIDER, else TF_LOG; off when neither is
// set), unless the user set TF_LOG_SDK_FRAMEWORK. Terraform drops provider
// log lines below that level anyway, so nothing visible changes; but the
// framework writes one trace line per value of every plan and state it
// walks, and each such line looks up its logger through a context that grows
// by one layer per value, so a 10,000-element map costs seconds of CPU per
// call when trace lines are built only to be dropped.
func limitFrameworkLogs() {
	if os.Getenv(frameworkLogLevel) != "" {
		return
	}
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
	_ = os.Setenv(frameworkLogLevel, level)
}
