package sandbox

import (
	"reflect"
	"testing"
)

func TestUserGroupEqual(t *testing.T) {
	if !(User{Name: "alice"}).Equal(User{Name: "alice"}) || (User{Name: "alice"}).Equal(User{Name: "bob"}) {
		t.Error("users compare by name")
	}
	a := Group{Name: "dev", Users: []User{{Name: "alice"}}}
	b := Group{Name: "dev", Users: []User{{Name: "bob"}, {Name: "carol"}}}
	if !a.Equal(b) {
		t.Error("groups compare by name only")
	}
	if a.Equal(Group{Name: "ops", Users: a.Users}) {
		t.Error("groups with different names must differ")
	}
}

func TestExecResultOK(t *testing.T) {
	if !(ExecResult{ExitCode: 0}).OK() || (ExecResult{ExitCode: 1}).OK() || (ExecResult{ExitCode: -1}).OK() {
		t.Error("OK must hold exactly for exit code 0")
	}
}

func TestURLFor(t *testing.T) {
	tests := []struct {
		ep      ExposedPortEndpoint
		scheme  string
		want    string
		wantErr string
	}{
		{ExposedPortEndpoint{Host: "127.0.0.1", Port: 8765}, "http", "http://127.0.0.1:8765/", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 443, TLS: true}, "http", "https://h.test/", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 443, TLS: true}, "ws", "wss://h.test/", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 80}, "ws", "ws://h.test/", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 443}, "http", "http://h.test:443/", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 80, TLS: true}, "http", "https://h.test:80/", ""},
		{ExposedPortEndpoint{Host: "::1", Port: 8080}, "HTTP", "http://[::1]:8080/", ""},
		{ExposedPortEndpoint{Host: "[::1]", Port: 8080}, "Ws", "ws://[::1]:8080/", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 80, Query: "a=1&b=2"}, "http", "http://h.test/?a=1&b=2", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 80, Query: "?a=1"}, "http", "http://h.test/?a=1", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 80, Query: "?"}, "http", "http://h.test/", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 80, Query: "??a=1"}, "http", "http://h.test/??a=1", ""},
		{ExposedPortEndpoint{Host: "h.test", Port: 80}, "https", "", "scheme must be either 'http' or 'ws'"},
		{ExposedPortEndpoint{Host: "h.test", Port: 80}, "wss", "", "scheme must be either 'http' or 'ws'"},
		{ExposedPortEndpoint{Host: "h.test", Port: 80}, "", "", "scheme must be either 'http' or 'ws'"},
	}
	for _, tt := range tests {
		got, err := tt.ep.URLFor(tt.scheme)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%+v %q: error = %v, want %q", tt.ep, tt.scheme, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%+v %q: got %q, %v; want %q", tt.ep, tt.scheme, got, err, tt.want)
		}
	}
}

func TestNewExecNonZeroError(t *testing.T) {
	tests := []struct {
		name           string
		stdout, stderr string
		code           int
		wantMsg        string
		wantOut        string
	}{
		{"both", "groupadd output", "groupadd failed", 9, "stdout: groupadd output\nstderr: groupadd failed", "groupadd output"},
		{"stdout only", "out", "", 1, "out", "out"},
		{"stderr only", "", "err", 2, "err", ""},
		{"none", "", "", 3, "command exited with code 3", ""},
		{"invalid utf-8", "a\xe2\x82b", "", 1, "a\ufffdb", "a\ufffdb"},
		{"surrogate bytes", "\xed\xa0\x80", "", 1, "\ufffd\ufffd\ufffd", "\ufffd\ufffd\ufffd"},
		{"truncated emoji", "\xf0\x9f\x98", "", 1, "\ufffd", "\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewExecNonZeroError([]string{"groupadd", "dev"},
				ExecResult{Stdout: []byte(tt.stdout), Stderr: []byte(tt.stderr), ExitCode: tt.code})
			if e.Message != tt.wantMsg {
				t.Errorf("Message = %q, want %q", e.Message, tt.wantMsg)
			}
			if e.Code != "exec_nonzero" || e.Op != "exec" || e.Retryable == nil || *e.Retryable {
				t.Errorf("code/op/retryable = %q %q %v", e.Code, e.Op, e.Retryable)
			}
			if e.Context["command_str"] != "groupadd dev" || e.Context["exit_code"] != tt.code || e.Context["stdout"] != tt.wantOut {
				t.Errorf("context = %#v", e.Context)
			}
			if !reflect.DeepEqual(e.Context["command"], []string{"groupadd", "dev"}) {
				t.Errorf("command = %#v", e.Context["command"])
			}
		})
	}
}

func TestNewExposedPortNotConfiguredError(t *testing.T) {
	e := NewExposedPortNotConfiguredError(9000, []int{8765})
	if e.Message != "port 9000 is not configured for host exposure" || e.Code != "exposed_port_unavailable" ||
		e.Op != "resolve_exposed_port" || e.Retryable == nil || *e.Retryable {
		t.Fatalf("got %+v", e)
	}
	want := map[string]any{"port": 9000, "exposed_ports": []int{8765}, "reason": "not_configured"}
	if !reflect.DeepEqual(e.Context, want) {
		t.Errorf("context = %#v, want %#v", e.Context, want)
	}
	if got := NewExposedPortNotConfiguredError(1, nil).Context["exposed_ports"]; !reflect.DeepEqual(got, []int{}) {
		t.Errorf("nil exposed ports should render as an empty list, got %#v", got)
	}
}
