package incontainer

import (
	"reflect"
	"testing"

	"github.com/agentsandbox/terraform-provider-sandbox/internal/sandbox"
)

func TestAccountCommands(t *testing.T) {
	users := []sandbox.User{{Name: "agent"}}
	groups := []sandbox.Group{{Name: "team", Users: []sandbox.User{{Name: "agent"}, {Name: "bob"}}}}
	shadow := [][]string{
		{"groupadd", "team"},
		{"useradd", "-U", "-M", "-s", "/usr/sbin/nologin", "agent"},
		{"useradd", "-U", "-M", "-s", "/usr/sbin/nologin", "bob"},
		{"usermod", "-aG", "team", "agent"},
		{"usermod", "-aG", "team", "bob"},
	}
	if got := AccountCommands(toolsShadow, users, groups); !reflect.DeepEqual(got, shadow) {
		t.Fatalf("shadow: %q", got)
	}
	busybox := [][]string{
		{"addgroup", "team"},
		{"adduser", "-D", "-H", "-s", "/sbin/nologin", "agent"},
		{"adduser", "-D", "-H", "-s", "/sbin/nologin", "bob"},
		{"addgroup", "agent", "team"},
		{"addgroup", "bob", "team"},
	}
	if got := AccountCommands(toolsBusybox, users, groups); !reflect.DeepEqual(got, busybox) {
		t.Fatalf("busybox: %q", got)
	}
}
