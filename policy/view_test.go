package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBareFormRoundTrip(t *testing.T) {
	auth, limits, traffic := Builtin()[0], Builtin()[1], Builtin()[2]
	tests := []struct {
		name  string
		kind  Kind
		rules map[string]interface{}
		want  map[string]interface{}
	}{
		{"sections", auth, map[string]interface{}{"authorization.b": 1, "authentication.a": 2},
			map[string]interface{}{"rules": map[string]interface{}{"authorization": map[string]interface{}{"b": 1}, "authentication": map[string]interface{}{"a": 2}}}},
		{"flat", limits, map[string]interface{}{"x": 1}, map[string]interface{}{"limits": map[string]interface{}{"x": 1}}},
		{"empty", limits, map[string]interface{}{}, map[string]interface{}{"limits": map[string]interface{}{}}},
		{"gep713 leaves", traffic, map[string]interface{}{"cdn.enabled": true, "cdn.cachePolicy.includeHost": false, "timeouts.request": "1s"},
			map[string]interface{}{"cdn": map[string]interface{}{"enabled": true, "cachePolicy": map[string]interface{}{"includeHost": false}}, "timeouts": map[string]interface{}{"request": "1s"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BareForm(tt.kind, tt.rules)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("BareForm (-want +got):\n%s", diff)
			}
			if tt.kind.Profile == ProfileGEP713 {
				if diff := cmp.Diff(tt.rules, Flatten(got)); diff != "" {
					t.Errorf("Flatten(BareForm) (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestValidRuleID(t *testing.T) {
	auth, limits := Builtin()[0], Builtin()[1]
	for _, c := range []struct {
		k    Kind
		id   string
		want bool
	}{
		{auth, "authorization.b", true}, {auth, "authorization.b.c", true}, {auth, "b", false},
		{auth, "authz.b", false}, {auth, "authorization.", false}, {limits, "x", true}, {limits, "", false},
	} {
		if got := ValidRuleID(c.k, c.id); got != c.want {
			t.Errorf("ValidRuleID(%s, %q) = %v, want %v", c.k, c.id, got, c.want)
		}
	}
}
