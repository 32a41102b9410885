package sandbox

import (
	"strconv"
	"strings"
)

// NewExecNonZeroError builds the Python SDK's ExecNonZeroError (design/sdk-model.md §9) for a
// command that exited with a non-zero code. stdout and stderr are decoded as
// UTF-8 with invalid sequences replaced by U+FFFD. The message is
// "stdout: <o>\nstderr: <e>" when both are non-empty, else whichever one is
// non-empty, else "command exited with code <n>". Code exec_nonzero, op
// "exec", not retryable; Context holds "command" ([]string), "command_str"
// (the arguments joined by single spaces), "exit_code" (int), "stdout" and
// "stderr" (the decoded strings).
func NewExecNonZeroError(command []string, res ExecResult) *Error {
	stdout := DecodeUTF8Replace(res.Stdout)
	stderr := DecodeUTF8Replace(res.Stderr)
	var msg string
	switch {
	case stdout != "" && stderr != "":
		msg = "stdout: " + stdout + "\nstderr: " + stderr
	case stdout != "":
		msg = stdout
	case stderr != "":
		msg = stderr
	default:
		msg = "command exited with code " + strconv.Itoa(res.ExitCode)
	}
	cmd := append([]string{}, command...)
	return &Error{
		Code:    CodeExecNonZero,
		Op:      "exec",
		Message: msg,
		Context: map[string]any{
			"command":     cmd,
			"command_str": strings.Join(cmd, " "),
			"exit_code":   res.ExitCode,
			"stdout":      stdout,
			"stderr":      stderr,
		},
		Retryable: boolPtr(false),
	}
}

// NewExposedPortNotConfiguredError builds the Python SDK's
// ExposedPortUnavailableError with reason "not_configured" (design/sdk-model.md §6.1): the
// port was not declared for host exposure. Message "port <p> is not
// configured for host exposure", code exposed_port_unavailable, op
// "resolve_exposed_port", not retryable; Context holds "port" (int),
// "exposed_ports" ([]int, never nil) and "reason".
func NewExposedPortNotConfiguredError(port int, exposed []int) *Error {
	return &Error{
		Code:    CodeExposedPortUnavailable,
		Op:      "resolve_exposed_port",
		Message: "port " + strconv.Itoa(port) + " is not configured for host exposure",
		Context: map[string]any{
			"port":          port,
			"exposed_ports": append([]int{}, exposed...),
			"reason":        ReasonNotConfigured,
		},
		Retryable: boolPtr(false),
	}
}
