package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// The Python SDK gives no rule for user and group names beyond "a string";
// the provider passes them to useradd/groupadd/adduser and chgrp, so it
// accepts only POSIX portable names: letters, digits, ".", "_" and "-", not
// starting with "-" or ".", at most MaxAccountNameLen bytes. Anything else
// (empty, "../etc", shell metacharacters, spaces, control bytes) is
// refused before any command runs.

// MaxAccountNameLen is the longest user or group name accepted (useradd's
// limit on Linux).
const MaxAccountNameLen = 32

// ValidateAccountName checks a user or group name (kind is "user" or
// "group") and returns an error naming the value and the rule, or nil.
// The user "root" is refused: provisioning it would alter the container's
// superuser account.
func ValidateAccountName(kind, name string) error {
	if name == "" {
		return fmt.Errorf("%s name must not be empty", kind)
	}
	if len(name) > MaxAccountNameLen {
		return fmt.Errorf("%s name %s is %d bytes long; names are limited to %d bytes", kind, QuoteText(name), len(name), MaxAccountNameLen)
	}
	if name[0] == '-' || name[0] == '.' {
		return fmt.Errorf("%s name %s must not start with %q", kind, QuoteText(name), name[0])
	}
	for _, c := range []byte(name) {
		if !isPortableNameByte(c) {
			return fmt.Errorf("%s name %s contains %s; names may hold only letters, digits, \".\", \"_\" and \"-\" "+
				"(POSIX portable names)", kind, QuoteText(name), QuoteText(string(c)))
		}
	}
	if _, err := strconv.Atoi(name); err == nil {
		return fmt.Errorf("%s name %s is all digits, which useradd and groupadd read as an id", kind, QuoteText(name))
	}
	if kind == "user" && name == "root" {
		return fmt.Errorf("user name \"root\" names the superuser, which is never provisioned; choose another name")
	}
	return nil
}

// ValidateGroupRef checks the group an entry is chgrp'ed to: a group name
// (ValidateAccountName rules) or a numeric gid.
func ValidateGroupRef(name string) error {
	if _, err := strconv.ParseUint(name, 10, 32); err == nil {
		return nil
	}
	return ValidateAccountName("group", name)
}

// ValidateOwnerRef checks the user an entry is chown'ed to: a user name
// (ValidateAccountName rules, plus "root"), or a numeric uid.
func ValidateOwnerRef(name string) error {
	if _, err := strconv.ParseUint(name, 10, 32); err == nil || name == "root" {
		return nil
	}
	return ValidateAccountName("user", name)
}

func isPortableNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// ValidateEnvName checks an environment variable name: not empty, no "="
// (the separator of NAME=value) and no NUL byte (the end of the string
// handed to the kernel).
func ValidateEnvName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("environment variable names must not be empty")
	case strings.Contains(name, "="):
		return fmt.Errorf("environment variable name %s contains \"=\", which separates a name from its value", QuoteText(name))
	case strings.ContainsRune(name, 0):
		return fmt.Errorf("environment variable name %s contains a NUL byte", QuoteText(name))
	}
	return nil
}

// ValidateEnvValue checks an environment variable value: no NUL byte.
func ValidateEnvValue(name, value string) error {
	if strings.ContainsRune(value, 0) {
		return fmt.Errorf("the value of environment variable %s contains a NUL byte", QuoteText(name))
	}
	return nil
}

// QuoteText quotes s for an error message with every control byte and
// invalid UTF-8 escaped (Go syntax), so a NUL or an escape sequence in a
// value never reaches a terminal raw. Long values are cut to 200 bytes.
func QuoteText(s string) string {
	const max = 200
	if len(s) > max {
		return strconv.Quote(s[:max]) + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return strconv.Quote(s)
}
