package warning

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLimit(t *testing.T) {
	grants := func(shown, rest int) string {
		if shown == 0 {
			return fmt.Sprintf("%d grants", rest)
		}
		return fmt.Sprintf("and %d more grants", rest)
	}
	tests := []struct {
		name string
		l    Limit
		ws   []string
		want []string
	}{
		{name: "no cap keeps every line", l: Limit{}, ws: []string{"a", "b", "c"}, want: []string{"a", "b", "c"}},
		{name: "lines that fit are kept", l: Limit{N: 3}, ws: []string{"a", "b", "c"}, want: []string{"a", "b", "c"}},
		{name: "the last line counts the rest", l: Limit{N: 3}, ws: []string{"a", "b", "c", "d"}, want: []string{"a", "b", "and 2 more warnings"}},
		{name: "a closing line of the caller's", l: Limit{N: 2, More: grants}, ws: []string{"a", "b", "c"}, want: []string{"a", "and 2 more grants"}},
		{name: "one line counts them all", l: Limit{N: 1, More: grants}, ws: []string{"a", "b", "c"}, want: []string{"3 grants"}},
		{name: "nothing to cap", l: Limit{N: 1}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.ws...)
			if diff := cmp.Diff(tt.want, tt.l.Apply(in)); diff != "" {
				t.Errorf("Apply (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.ws, in); diff != "" {
				t.Errorf("Apply changed its input (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTargetNotFound(t *testing.T) {
	want := "PRC-W011 spec.targetRefs[1]: target Gateway shop/gw not found: the policy has no effect until it exists"
	if got := TargetNotFound("spec.targetRefs[1]", "Gateway shop/gw"); got != want {
		t.Errorf("TargetNotFound = %q, want %q", got, want)
	}
}
