package posix

import (
	"io/fs"
	"strings"
	"testing"
)

func TestPermissionsFromString(t *testing.T) {
	tests := []struct {
		in      string
		want    Permissions
		wantErr string
	}{
		{in: "drwxr-xr-x", want: Permissions{7, 5, 5, true}},
		{in: "-rw-------", want: Permissions{6, 0, 0, false}},
		{in: "----------", want: Permissions{}},
		{in: "-rwsr-sr-t", want: Permissions{7, 5, 5, false}},
		{in: "-rwSrwSrwT", want: Permissions{6, 6, 6, false}},
		{in: "-rw-r--r--+", want: Permissions{6, 4, 4, false}},
		{in: "-rw-r--r--@", want: Permissions{6, 4, 4, false}},
		{in: "drwxr-x---.", want: Permissions{7, 5, 0, true}},
		{in: "-rw-r--r-", wantErr: "invalid permissions string length: '-rw-r--r-'"},
		{in: "-rw-r--r--++", wantErr: "invalid permissions string length: '-rw-r--r--++'"},
		{in: "-rw-r--r--x", wantErr: "invalid permissions string length: '-rw-r--r--x'"},
		{in: "-rw-r--r--\n", wantErr: `invalid permissions string length: '-rw-r--r--\n'`},
		{in: "", wantErr: "invalid permissions string length: ''"},
		{in: "lrwxrwxrwx", wantErr: "invalid permissions type: 'lrwxrwxrwx'"},
		{in: "-xwxr-xr-x", wantErr: "invalid read flag: 'xwx'"},
		{in: "-rwxrrxr-x", wantErr: "invalid write flag: 'rrx'"},
		{in: "-rwtr--r--", wantErr: "invalid exec flag: 'rwt'"},
		{in: "-rwxr-xr-s", wantErr: "invalid exec flag: 'r-s'"},
		{in: "-rw-r--r-'", wantErr: `invalid exec flag: "r-'"`},
		{in: "d'\"-------", wantErr: `invalid read flag: '\'"-'`},
		{in: "drwxr-xr-é", wantErr: "invalid exec flag: 'r-é'"},
		{in: "-rw-r--r-\u00a0", wantErr: `invalid exec flag: 'r-\xa0'`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := PermissionsFromString(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestPermissionsModeAndString(t *testing.T) {
	tests := []struct {
		p     Permissions
		mode  uint32
		str   string
		chmod string
		perm  fs.FileMode
	}{
		{Permissions{7, 5, 5, true}, 0o40755, "drwxr-xr-x", "0755", 0o755},
		{Permissions{6, 0, 0, false}, 0o600, "-rw-------", "0600", 0o600},
		{Permissions{}, 0, "----------", "0000", 0},
		{Permissions{7, 7, 6, true}, 0o40776, "drwxrwxrw-", "0776", 0o776},
		// No range check, as in the Python SDK: 8 in "owner" lands in the sticky bit.
		{Permissions{8, 0, 0, false}, 0o1000, "----------", "1000", 0},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			if got := tt.p.ToMode(); got != tt.mode {
				t.Errorf("ToMode = %o, want %o", got, tt.mode)
			}
			if got := tt.p.String(); got != tt.str {
				t.Errorf("String = %q, want %q", got, tt.str)
			}
			if got := tt.p.ChmodArg(); got != tt.chmod {
				t.Errorf("ChmodArg = %q, want %q", got, tt.chmod)
			}
			if got := tt.p.Perm(); got != tt.perm {
				t.Errorf("Perm = %v, want %v", got, tt.perm)
			}
		})
	}
}

func TestPermissionsFromMode(t *testing.T) {
	tests := []struct {
		mode uint32
		want Permissions
	}{
		{0o100600, Permissions{6, 0, 0, false}},
		{0o4755, Permissions{7, 5, 5, false}},
		{0o1777, Permissions{7, 7, 7, false}},
		{0o40750, Permissions{7, 5, 0, true}},
		{0o140755, Permissions{7, 5, 5, true}}, // a socket shares the S_IFDIR bit
	}
	for _, tt := range tests {
		if got := PermissionsFromMode(tt.mode); got != tt.want {
			t.Errorf("PermissionsFromMode(%o) = %+v, want %+v", tt.mode, got, tt.want)
		}
	}
}

func TestPermissionsDefaultsAndEqual(t *testing.T) {
	if got := DefaultPermissions(); got != (Permissions{7, 5, 5, false}) {
		t.Errorf("DefaultPermissions = %+v", got)
	}
	if !PermissionsFromMode(0o755).Equal(Permissions{7, 5, 5, false}) {
		t.Error("from_mode(0o755) should equal Permissions(7,5,5)")
	}
	if (Permissions{0, 8, 0, false}).Equal(Permissions{1, 0, 0, false}) != true {
		t.Error("equality compares to_mode only")
	}
	if PermissionsFromMode(0o755).Equal(PermissionsFromMode(0o40755)) {
		t.Error("the directory bit is part of to_mode")
	}
}

func TestParsePermissions(t *testing.T) {
	tests := []struct {
		in      string
		want    Permissions
		wantErr string // substring
	}{
		{in: "0750", want: Permissions{7, 5, 0, false}},
		{in: "750", want: Permissions{7, 5, 0, false}},
		{in: "0644", want: Permissions{6, 4, 4, false}},
		{in: "000", want: Permissions{}},
		{in: "drwxr-x---", want: Permissions{7, 5, 0, true}},
		{in: "-rw-r--r--+", want: Permissions{6, 4, 4, false}},
		{in: "4755", wantErr: `invalid permissions "4755": setuid, setgid and sticky bits are not supported`},
		{in: "1777", wantErr: "sticky bits are not supported"},
		{in: "0758", wantErr: `invalid permissions "0758": octal digits must be 0-7`},
		{in: "75", wantErr: `invalid permissions "75": expected an octal mode of 3 or 4 digits`},
		{in: "07500", wantErr: `invalid permissions "07500"`},
		{in: "rwx", wantErr: `invalid permissions "rwx": expected`},
		{in: "", wantErr: `invalid permissions "": expected`},
		{in: "-rw-r--r-", wantErr: "invalid permissions string length: '-rw-r--r-'"},
		{in: "drwx", wantErr: "invalid permissions string length: 'drwx'"},
		{in: "-rw-r--r--x", wantErr: "invalid permissions string length: '-rw-r--r--x'"},
		{in: "lrwxrwxrwx", wantErr: "invalid permissions type: 'lrwxrwxrwx'"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePermissions(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestPermissionsEqualString(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"0750", "750", true},
		{"0750", "drwxr-x---", true},
		{"-rwxr-x---", "drwxr-x---", true},
		{"0644", "-rw-r--r--", true},
		{"0644", "0640", false},
		{"0644", "bogus", false},
		{"bogus", "bogus", false},
	}
	for _, tt := range tests {
		if got := PermissionsEqualString(tt.a, tt.b); got != tt.want {
			t.Errorf("PermissionsEqualString(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
