package engine

import (
	"strings"
	"testing"
)

// TestCompareKey: compareKey orders a key against namespace/name as strings.Compare orders it
// against the joined string.
func TestCompareKey(t *testing.T) {
	cases := []struct{ name, key, namespace, objName string }{
		{"equal", "ns/a", "ns", "a"},
		{"name sorts before", "ns/a", "ns", "b"},
		{"name sorts after", "ns/b", "ns", "a"},
		{"name a prefix", "ns/a", "ns", "ab"},
		{"key name longer", "ns/ab", "ns", "a"},
		{"key a prefix of namespace", "n", "ns", "a"},
		{"key the namespace alone", "ns", "ns", "a"},
		{"key namespace longer, byte before slash", "ns-x/a", "ns", "a"},
		{"key namespace longer, byte after slash", "nsx/a", "ns", "a"},
		{"namespace sorts before", "a/z", "b", "a"},
		{"namespace sorts after", "c/a", "b", "z"},
		{"empty key", "", "ns", "a"},
		{"empty namespace", "/a", "", "a"},
	}
	for _, c := range cases {
		want := strings.Compare(c.key, c.namespace+"/"+c.objName)
		if got := compareKey(c.key, c.namespace, c.objName); got != want {
			t.Errorf("%s: compareKey(%q, %q, %q) = %d, want %d", c.name, c.key, c.namespace, c.objName, got, want)
		}
	}
}
