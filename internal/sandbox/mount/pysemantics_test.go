package mount

import (
	"reflect"
	"testing"
)

// Expected values are what Python's urllib.parse gives for the Python SDK's
// helpers on the same input.
func TestInlineURLAuthorityFollowsPythonParsing(t *testing.T) {
	tests := []struct {
		url       string
		sensitive bool
		values    []string
	}{
		{"http://[::1]:9000/x", false, nil},
		{"http://[::1/x", true, []string{"http://[::1/x"}},
		{"http://[1.2.3.4]/", true, []string{"http://[1.2.3.4]/"}},
		{"http://[v1.x]/", false, nil},
		{"http://[vz]/", true, []string{"http://[vz]/"}},
		{"https://h\uff20x/", true, []string{"https://h\uff20x/"}},
		{"https://b\u00fccher.example/", false, nil},
		{"https://[fe80::1%25eth0]/", false, nil},
		{"https://h#frag?x", false, nil},
		{"https://:@h", true, []string{"https://:@h"}},
		{"//host?x#y?z", true, []string{"//host?x#y?z", "x"}},
		{"ht tp://h?q", true, []string{"ht tp://h?q", "q"}},
		{"https://h\n?x=1", true, []string{"https://h\n?x=1", "x=1", "1"}},
		{"https://h?&&a&=b", true, []string{"https://h?&&a&=b", "&&a&=b", "b"}},
		{"https://h?a=%25%32%35", true, []string{"https://h?a=%25%32%35", "a=%25%32%35", "a=%25", "%25", "%"}},
		{"https://h?q=%FF%FE", true, []string{"https://h?q=%FF%FE", "q=%FF%FE", "q=\ufffd\ufffd", "\ufffd\ufffd"}},
		{"\thttps://h/?a=%ZZ&b=%C3%A9&c=%E2%82&d=+x+&e", true, []string{"\thttps://h/?a=%ZZ&b=%C3%A9&c=%E2%82&d=+x+&e",
			"a=%ZZ&b=%C3%A9&c=%E2%82&d=+x+&e", "a=%ZZ&b=\u00e9&c=\ufffd&d=+x+&e", "%ZZ", "\u00e9", "\ufffd", " x "}},
	}
	for _, tt := range tests {
		if got := URLContainsInlineAuthority(tt.url); got != tt.sensitive {
			t.Errorf("URLContainsInlineAuthority(%q) = %v, want %v", tt.url, got, tt.sensitive)
		}
		if got := InlineURLAuthorityValues(tt.url); !reflect.DeepEqual(got, tt.values) {
			t.Errorf("InlineURLAuthorityValues(%q) = %q, want %q", tt.url, got, tt.values)
		}
	}
}
