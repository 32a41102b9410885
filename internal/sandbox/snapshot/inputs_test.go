package snapshot

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

func TestInputsSHA256(t *testing.T) {
	lit := func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }
	in := Inputs{Image: "img:1", Entries: map[string]string{"b": "2", "a": "1"},
		Commands: []InputCommand{{Shell: "make", Environment: []string{"Z", "A", "Z"}}, {Command: []string{"true"}, WorkingDir: "w"}}}
	want := lit(`{"version":"sandbox_inputs_v1","image":"img:1","image_digest":"","entries":{"a":"1","b":"2"},"commands":[` +
		`{"command":[],"shell":"make","working_dir":"","environment":["A","Z"]},` +
		`{"command":["true"],"shell":"","working_dir":"w","environment":[]}]}`)
	if got := in.SHA256(); got != want {
		t.Fatalf("SHA256 = %s, want %s", got, want)
	}
	if got := (Inputs{}).SHA256(); got != lit(`{"version":"sandbox_inputs_v1","image":"","image_digest":"","entries":{},"commands":[]}`) {
		t.Fatalf("empty inputs: %s", got)
	}
	// Order of commands matters; a changed text or entry digest changes it.
	swapped := in
	swapped.Commands = []InputCommand{in.Commands[1], in.Commands[0]}
	edited := in
	edited.Entries = map[string]string{"a": "1", "b": "3"}
	for name, other := range map[string]Inputs{"swapped": swapped, "edited": edited} {
		if other.SHA256() == want {
			t.Errorf("%s inputs have the same digest", name)
		}
	}
}
