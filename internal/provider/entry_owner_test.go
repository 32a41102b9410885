package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// observeID keeps a configured owner or group that names what is on disk
// by name or id, and otherwise records what is there, so the plan shows it.
func TestObserveID(t *testing.T) {
	for _, c := range []struct {
		cur         types.String
		name, below string
		id          int
		want        types.String
	}{
		{types.StringNull(), "root", "", 0, types.StringNull()},
		{types.StringValue("agent"), "agent", "", 1000, types.StringValue("agent")},
		{types.StringValue("1000"), "agent", "", 1000, types.StringValue("1000")},
		{types.StringValue("agent"), "root", "", 0, types.StringValue("root")},
		{types.StringValue("agent"), "agent", "0", 1000, types.StringValue("0")},
		{types.StringValue("agent"), "root", "0", 0, types.StringValue("root")},
	} {
		if got := observeID(c.cur, c.name, c.id, c.below); !got.Equal(c.want) {
			t.Errorf("observeID(%s, %q, %d, %q) = %s, want %s", c.cur, c.name, c.id, c.below, got, c.want)
		}
	}
}
