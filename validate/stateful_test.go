package validate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/validate"
)

// TestStatefulOnly selects stateful checks by name, as the reconciler does: a second policy on one
// target is a finding of onePolicyPerTarget only.
func TestStatefulOnly(t *testing.T) {
	s := settings.Defaults()
	s.OnePolicyPerTarget = true
	snap := world(t, "AuthPolicy", authPolicy("first", routeTarget+"  rules: {authorization: {a: {}}}\n"))
	p, errs := policy.View(snap.Kind, obj(t, authPolicy("second", routeTarget+"  rules: {authorization: {b: {}}}\n")))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	count := func(only ...string) int {
		errs, _ := validate.Stateful(snap, p, s, only...)
		return len(errs)
	}
	got := map[string]int{
		"all":                            count(),
		settings.CheckUnsetOverride:      count(settings.CheckUnsetOverride),
		settings.CheckOnePolicyPerTarget: count(settings.CheckOnePolicyPerTarget),
	}
	want := map[string]int{"all": 1, settings.CheckUnsetOverride: 0, settings.CheckOnePolicyPerTarget: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors per selection (-want +got):\n%s", diff)
	}
}
