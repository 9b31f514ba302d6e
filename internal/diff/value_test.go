package diff

import "testing"

func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b interface{}
		want bool
	}{
		{"a file's float64 and the API server's int64", map[string]interface{}{"limit": float64(5)}, map[string]interface{}{"limit": int64(5)}, true},
		{"another number", []interface{}{int64(5)}, []interface{}{float64(6)}, false},
		{"a missing key", map[string]interface{}{"a": "x"}, map[string]interface{}{"b": "x"}, false},
		{"strings", "10s", "10s", true},
		{"a string is not a number", "5", int64(5), false},
	} {
		if got := sameValue(c.a, c.b); got != c.want {
			t.Errorf("%s: sameValue = %v, want %v", c.name, got, c.want)
		}
	}
}
