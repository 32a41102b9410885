package fakes3

import "testing"

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/plain`:         "/tmp/plain",
		`/tmp/a\040b`:        "/tmp/a b",
		`/tmp/tab\011nl\012`: "/tmp/tab\tnl\n",
		`/tmp/back\134slash`: `/tmp/back\slash`,
		`/tmp/short\04`:      `/tmp/short\04`,
		`/tmp/not\999octal`:  `/tmp/not\999octal`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMounted_root(t *testing.T) {
	ok, fstype, err := Mounted("/")
	if err != nil || !ok || fstype == "" {
		t.Fatalf(`Mounted("/") = %v, %q, %v`, ok, fstype, err)
	}
	if ok, _, err := Mounted(t.TempDir()); err != nil || ok {
		t.Fatalf("a fresh temporary directory reads as mounted (%v, %v)", ok, err)
	}
}
