package manifest

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestUnmarshalAsSigsYAML: unmarshal gives what sigs.k8s.io/yaml.Unmarshal gives into a
// map[string]interface{}, values and errors, for the YAML that objects hold and for the corners
// where its JSON round trip changes values.
func TestUnmarshalAsSigsYAML(t *testing.T) {
	docs := map[string]string{
		"an object":                   "apiVersion: v1\nkind: A\nmetadata: {name: a, labels: {x: y}}\nspec:\n  list: [1, 2.5, -3, true, null, ~, '', \"s\"]\n  nested: [{a: [{}]}, [], {}]\n",
		"YAML 1.1 booleans":           "a: yes\nb: no\nc: on\nd: off\ne: y\nf: 'yes'\n",
		"integers of every size":      fmt.Sprintf("a: 0\nb: -0\nc: 0x1F\nd: 0o17\ne: 017\nf: %d\ng: %d\nh: 9007199254740993\ni: 18446744073709551615\nj: 1_000\nk: 190:20:30\n", math.MaxInt64, math.MinInt64),
		"floats":                      "a: 1.5\nb: -0.0\nc: 1e300\nd: 6.02e+23\ne: .5\nf: 1.0\n",
		"NaN and infinities":          "a: .nan\n",
		"infinity":                    "a: .inf\nb: -.Inf\n",
		"timestamps stay strings":     "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\n",
		"binary":                      "a: !!binary aGVsbG8=\n",
		"non-string keys":             "1: a\ntrue: b\n1.5: c\n",
		"int and bool keys":           "1: a\ntrue: b\n-2: c\n",
		"a null key":                  "? \n: a\n",
		"anchors and merge keys":      "base: &b {x: 1, y: [2]}\nderived:\n  <<: *b\n  z: 3\n",
		"block scalars":               "a: |\n  line one\n  line two\nb: >-\n  folded\n  text\n",
		"HTML and control characters": "a: \"<b>&\\u2028\\t\"\n",
		"invalid UTF-8":               "a: \"\\xff\"\n",
		"invalid UTF-8 in a key":      "\"\\xfe\": a\n",
		"a duplicate key":             "a: 1\na: 2\n",
		"empty":                       "",
		"only null":                   "~\n",
		"a scalar":                    "just text\n",
		"a list":                      "- a\n- b\n",
		"a syntax error":              "a: [b\n",
		"a tab":                       "a:\n\tb: c\n",
		"JSON":                        `{"apiVersion": "v1", "kind": "A", "n": 12345678901234567890, "f": 1.25e-7}`,
		"empty object":                "{}\n",
		"empty nested objects":        "a: {}\nb: [{}, {c: {}}]\n",
		"a merge key overridden":      "base: &b {x: 1, y: 2}\nd:\n  x: 0\n  <<: *b\n  y: 3\n",
		"a nested duplicate key":      "a:\n  b: 1\n  b: 2\n",
		"a mapping as a key":          "? {a: b}\n: c\n",
		"an alias":                    "a: &x {b: [1, {c: d}]}\ne: *x\n",
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			var want map[string]interface{}
			wantErr := yaml.Unmarshal([]byte(doc), &want)
			got, err := unmarshal([]byte(doc))
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error = %v, want %v", err, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("values (-sigs.k8s.io/yaml +unmarshal):\n%s", diff)
			}
			if (want == nil) != (got == nil) {
				t.Errorf("nil map = %t, want %t", got == nil, want == nil)
			}
		})
	}
	// Keys that collide once written as strings: sigs.k8s.io/yaml keeps one of them, which one
	// undefined (Go's map order), and so does unmarshal.
	got, err := unmarshal([]byte("1: a\n'1': b\n"))
	if err != nil || len(got) != 1 || (got["1"] != "a" && got["1"] != "b") {
		t.Errorf("colliding keys: got %v, %v; want one of the values under \"1\"", got, err)
	}
}
