package cel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReads(t *testing.T) {
	e, err := New(0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		expr  string
		depth int
		want  [][]string
		ok    bool
	}{
		{"has(self.limits.expensive) && self.limits.expensive.rates[0].limit > 10", 2, [][]string{{"limits", "expensive"}, {"limits", "expensive"}}, true},
		{"self.rules.authorization.b.opa.rego == 'x'", 3, [][]string{{"rules", "authorization", "b"}}, true},
		{"true", 2, nil, true},
		{"self.limits.a.rates.all(r, r.limit < 100)", 2, [][]string{{"limits", "a"}}, true},
		{"self.limits.size() > 2", 2, nil, false},              // reads every rule
		{"has(self.limits)", 2, nil, false},                    // too shallow
		{"self == {}", 2, nil, false},                          // self itself
		{"[self].all(s, has(s.limits.a))", 2, nil, false},      // self through a list
		{"self.limits.all(self, self == 'a')", 2, nil, false},  // shadowed
		{"self.limits[?'a'].hasValue()", 2, nil, false},        // optional selection
		{"self.limits['a'].rates[0].limit > 1", 2, nil, false}, // index, not a selection
		{"{'k': self.limits.a}.k.rates[0].limit > 1", 2, [][]string{{"limits", "a"}}, true},
		{"not valid (", 2, nil, false},
	}
	for _, tt := range tests {
		got, ok := e.Reads(tt.expr, tt.depth)
		if ok != tt.ok {
			t.Errorf("Reads(%q) ok = %v, want %v", tt.expr, ok, tt.ok)
			continue
		}
		if ok {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Reads(%q) (-want +got):\n%s", tt.expr, diff)
			}
		}
	}
}
