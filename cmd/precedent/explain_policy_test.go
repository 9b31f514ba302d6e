package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

func TestRuleFate(t *testing.T) {
	gw, other := policy.Ref{Namespace: "gw-ns", Name: "gw-policy"}, policy.Ref{Namespace: "ns", Name: "other"}
	path := func(route string) effective.ItemKey { return effective.ItemKey{Gateway: "gw-ns/gw", Route: route} }
	for _, tc := range []struct {
		name    string
		status  effective.RuleStatus
		decided map[pathRule]decision
		want    ruleFate
	}{
		{
			name:   "in effect on every path",
			status: effective.RuleStatus{Rule: "a", InEffect: []effective.ItemKey{path("ns/r1"), path("ns/r2")}},
			want:   ruleFate{ID: "a", State: stateInEffect, Paths: 2},
		},
		{
			name: "in effect on some paths only is partly, by who took it elsewhere",
			status: effective.RuleStatus{Rule: "a", InEffect: []effective.ItemKey{path("ns/r1"), path("ns/r2")},
				Replaced: []effective.ReplacedRuleAt{{Path: path("ns/r3"), By: &gw, How: effective.Overridden}}},
			want: ruleFate{ID: "a", State: statePartly, By: "gw-ns/gw-policy", Paths: 3},
		},
		{
			name: "the fate and the decider of most paths win",
			status: effective.RuleStatus{Rule: "a", Replaced: []effective.ReplacedRuleAt{
				{Path: path("ns/r1"), By: &other, How: effective.Replaced},
				{Path: path("ns/r2"), By: &gw, How: effective.Overridden},
				{Path: path("ns/r3"), By: &gw, How: effective.Overridden},
			}},
			want: ruleFate{ID: "a", State: stateOverridden, By: "gw-ns/gw-policy", Paths: 3},
		},
		{
			name:    "an override that removed the rule names its policy from the events",
			status:  effective.RuleStatus{Rule: "a", Replaced: []effective.ReplacedRuleAt{{Path: path("ns/r1"), How: effective.Overridden}}},
			decided: map[pathRule]decision{{path("ns/r1"), "a"}: {by: "gw-ns/gw-policy"}},
			want:    ruleFate{ID: "a", State: stateOverridden, By: "gw-ns/gw-policy", Paths: 1},
		},
		{
			name:    "a constraint that clipped the rule is clipped",
			status:  effective.RuleStatus{Rule: "a", Replaced: []effective.ReplacedRuleAt{{Path: path("ns/r1"), By: &gw, How: effective.Overridden}}},
			decided: map[pathRule]decision{{path("ns/r1"), "a"}: {clipped: true, by: "gw-ns/gw-policy"}},
			want:    ruleFate{ID: "a", State: stateClipped, By: "gw-ns/gw-policy", Paths: 1},
		},
		{
			name:   "unset by a more specific policy",
			status: effective.RuleStatus{Rule: "a", Replaced: []effective.ReplacedRuleAt{{Path: path("ns/r1"), By: &other, How: effective.Unset}}},
			want:   ruleFate{ID: "a", State: stateUnset, By: "ns/other", Paths: 1},
		},
		{
			name:   "a block whose when is false counts as replaced",
			status: effective.RuleStatus{Rule: "a", Replaced: []effective.ReplacedRuleAt{{Path: path("ns/r1"), How: effective.ConditionFalse}}},
			want:   ruleFate{ID: "a", State: stateReplaced, Paths: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fate(tc.status, tc.decided), cmp.AllowUnexported(ruleFate{})); diff != "" {
				t.Errorf("fate (-want +got):\n%s", diff)
			}
		})
	}
}
