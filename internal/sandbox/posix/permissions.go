package posix

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// FileMode is one permission triplet's bits, the Python SDK's FileMode int enum
// (design/sdk-model.md §1.2): read 4, write 2, exec 1.
type FileMode int

// The Python SDK's FileMode values (design/sdk-model.md §1.2).
const (
	// FileModeNone grants nothing (0).
	FileModeNone FileMode = 0
	// FileModeExec is the execute/search bit (1).
	FileModeExec FileMode = 1
	// FileModeWrite is the write bit (2).
	FileModeWrite FileMode = 2
	// FileModeRead is the read bit (4).
	FileModeRead FileMode = 4
	// FileModeAll is read, write and exec (7).
	FileModeAll FileMode = 7
)

// dirTypeBit is stat.S_IFDIR, the directory type bit of a mode.
const dirTypeBit = 0o040000

// Permissions is the Python SDK's Permissions value (design/sdk-model.md §1.3): one integer per
// triplet and a directory flag. As in the Python SDK, no range check is done on
// the integers: values above 7 are shifted into the mode as they are. The
// JSON form uses the Python SDK's keys, in the Python SDK's order. The zero value is
// "----------"; entries default to DefaultPermissions.
type Permissions struct {
	Owner     int  `json:"owner"`
	Group     int  `json:"group"`
	Other     int  `json:"other"`
	Directory bool `json:"directory"`
}

// DefaultPermissions returns the permissions an entry gets when none are
// given: owner 7, group 5, other 5, not a directory ("-rwxr-xr-x"), the
// default of the Python SDK's BaseEntry.permissions (design/sdk-model.md §2.1). Directory-like
// entries force Directory to true; see the manifest package's DefaultEntryPermissions. (A bare
// Python SDK Permissions() defaults to 7, 0, 0 instead.)
func DefaultPermissions() Permissions {
	return Permissions{Owner: 7, Group: 5, Other: 5}
}

// PermissionsFromMode follows the Python SDK's Permissions.from_mode (design/sdk-model.md §1.3):
// owner (m>>6)&7, group (m>>3)&7, other m&7, and Directory when the
// 0o040000 bit is set (so, as in the Python SDK, any file type that shares that
// bit counts as a directory). Setuid, setgid, sticky and the other file type
// bits are discarded.
func PermissionsFromMode(m uint32) Permissions {
	return Permissions{
		Owner:     int((m >> 6) & 7),
		Group:     int((m >> 3) & 7),
		Other:     int(m & 7),
		Directory: m&dirTypeBit != 0,
	}
}

// PermissionsFromString follows the Python SDK's Permissions.from_str (design/sdk-model.md §1.3):
// it parses an `ls -l` style string such as "drwxr-x---". One trailing "+",
// "@" or "." marker is dropped from an 11-character string. Errors are the
// Python SDK's ValueError messages with the Python repr of the offending text:
// "invalid permissions string length: '<s>'", "invalid permissions type:
// '<s>'", and "invalid read flag: '<triplet>'" (likewise write and exec).
// The exec position accepts x/s (set) and -/S (clear) for owner and group,
// x/t and -/T for other; the special bits themselves are discarded. Lengths
// count Unicode code points, as Python does.
func PermissionsFromString(s string) (Permissions, error) {
	runes := []rune(s)
	if len(runes) == 11 {
		switch runes[10] {
		case '+', '@', '.':
			runes = runes[:10]
		}
	}
	if len(runes) != 10 {
		return Permissions{}, errors.New("invalid permissions string length: " + pyRepr(string(runes)))
	}
	if runes[0] != 'd' && runes[0] != '-' {
		return Permissions{}, errors.New("invalid permissions type: " + pyRepr(string(runes)))
	}
	var bits [3]int
	for i := range bits {
		triplet := runes[1+3*i : 4+3*i]
		v, err := parsePermTriplet(triplet, i == 2)
		if err != nil {
			return Permissions{}, err
		}
		bits[i] = v
	}
	return Permissions{Owner: bits[0], Group: bits[1], Other: bits[2], Directory: runes[0] == 'd'}, nil
}

func parsePermTriplet(t []rune, other bool) (int, error) {
	mask := 0
	switch t[0] {
	case 'r':
		mask |= int(FileModeRead)
	case '-':
	default:
		return 0, errors.New("invalid read flag: " + pyRepr(string(t)))
	}
	switch t[1] {
	case 'w':
		mask |= int(FileModeWrite)
	case '-':
	default:
		return 0, errors.New("invalid write flag: " + pyRepr(string(t)))
	}
	set, clear := 's', 'S'
	if other {
		set, clear = 't', 'T'
	}
	switch t[2] {
	case 'x', set:
		mask |= int(FileModeExec)
	case '-', clear:
	default:
		return 0, errors.New("invalid exec flag: " + pyRepr(string(t)))
	}
	return mask, nil
}

// ToMode follows the Python SDK's to_mode (design/sdk-model.md §1.3): owner<<6 | group<<3 |
// other, plus the directory type bit 0o040000 when Directory is set.
func (p Permissions) ToMode() uint32 {
	m := uint32(p.Owner<<6 | p.Group<<3 | p.Other)
	if p.Directory {
		m |= dirTypeBit
	}
	return m
}

// String follows the Python SDK's repr (design/sdk-model.md §1.3): "d" or "-" then three rwx
// groups with "-" for missing bits, e.g. "drwxr-xr-x". Only bits 4, 2 and 1
// of each field are rendered.
func (p Permissions) String() string {
	b := make([]byte, 0, 10)
	if p.Directory {
		b = append(b, 'd')
	} else {
		b = append(b, '-')
	}
	for _, v := range []int{p.Owner, p.Group, p.Other} {
		for _, f := range []struct {
			bit FileMode
			c   byte
		}{{FileModeRead, 'r'}, {FileModeWrite, 'w'}, {FileModeExec, 'x'}} {
			if v&int(f.bit) != 0 {
				b = append(b, f.c)
			} else {
				b = append(b, '-')
			}
		}
	}
	return string(b)
}

// ChmodArg returns the argument the Python SDK passes to chmod when it applies an
// entry's metadata (design/sdk-model.md §2.1): the permission bits of ToMode with the type
// bits stripped (stat.S_IMODE), in octal, zero-padded to 4 digits: "0755",
// "0600".
func (p Permissions) ChmodArg() string {
	return fmt.Sprintf("%04o", p.ToMode()&0o7777)
}

// Perm returns the permission bits ToMode() & 0o777 as an fs.FileMode, for
// an explicit chmod on a backend.
func (p Permissions) Perm() fs.FileMode {
	return fs.FileMode(p.ToMode() & 0o777)
}

// Equal follows the Python SDK's equality (design/sdk-model.md §1.3): true iff ToMode is equal.
// ToMode is also what the Python SDK hashes.
func (p Permissions) Equal(o Permissions) bool {
	return p.ToMode() == o.ToMode()
}

// ParsePermissions is the provider-facing parser. It accepts:
//   - the Python SDK's ls-style strings, parsed by PermissionsFromString
//     ("drwxr-x---", "-rw-r--r--+");
//   - octal strings of 3 or 4 digits 0-7 ("750", "0750"), giving
//     Directory false. A 4-digit value whose first digit is not 0 is
//     refused: setuid, setgid and sticky bits are not supported, since the
//     Python SDK never produces them.
//
// A string of 10 or 11 characters, or one starting with "d" or "-", is read
// as the ls form and gets the Python SDK's from_str messages; any other input is
// an error naming the value and the accepted forms.
func ParsePermissions(s string) (Permissions, error) {
	n := utf8.RuneCountInString(s)
	if (n == 3 || n == 4) && isASCIIDigits(s) {
		for _, c := range s {
			if c > '7' {
				return Permissions{}, fmt.Errorf("invalid permissions %q: octal digits must be 0-7", s)
			}
		}
		if n == 4 && s[0] != '0' {
			return Permissions{}, fmt.Errorf(
				"invalid permissions %q: setuid, setgid and sticky bits are not supported; use 3 octal digits or a leading 0 (such as %q)",
				s, "0"+s[1:])
		}
		var m uint32
		for _, c := range s {
			m = m<<3 | uint32(c-'0')
		}
		return PermissionsFromMode(m & 0o777), nil
	}
	if n == 10 || n == 11 || strings.HasPrefix(s, "d") || strings.HasPrefix(s, "-") {
		// Anything that looks like the ls form gets the Python SDK's messages.
		return PermissionsFromString(s)
	}
	return Permissions{}, fmt.Errorf(
		"invalid permissions %q: expected an octal mode of 3 or 4 digits (such as \"0750\") or an ls-style string (such as \"drwxr-x---\" or \"-rw-r--r--\")",
		s)
}

// PermissionsEqualString reports whether two permission strings accepted by
// ParsePermissions give the same permission bits (Perm); the directory flag
// is ignored, so "0750" equals "drwxr-x---". It is false when either string
// does not parse. Terraform's semantic equality for permissions uses it.
func PermissionsEqualString(a, b string) bool {
	pa, err := ParsePermissions(a)
	if err != nil {
		return false
	}
	pb, err := ParsePermissions(b)
	if err != nil {
		return false
	}
	return pa.Perm() == pb.Perm()
}

func isASCIIDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
