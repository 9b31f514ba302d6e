package effective_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
)

func TestExplain(t *testing.T) {
	s := load(t, "AuthPolicy", "../../config/samples/rfc/d2")
	got := s.Explain(s.Graph.Paths[0], "authorization.b")
	route, gw := policy.Ref{Namespace: "d2", Name: "route-policy"}, policy.Ref{Namespace: "d2", Name: "gw-policy"}
	want := effective.Explanation{
		Path: effective.ItemKey{Gateway: "d2/gw", Route: "d2/route"}, Rule: "authorization.b", From: &gw,
		Steps: []effective.Step{
			{Level: "route", Policy: route, Block: "rules", Action: effective.Added},
			{Level: "gateway", Policy: gw, Block: "overrides", Action: effective.Overridden, Other: &route},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Explain (-want +got):\n%s", diff)
	}
}

func TestRuleStatusesAndReach(t *testing.T) {
	s := load(t, "AuthPolicy", "../../config/samples/rfc/b2", "../../config/samples/rfc/f1")
	gw, _ := s.Policy(policy.Ref{Namespace: "b2", Name: "gw-policy"})
	route := policy.Ref{Namespace: "b2", Name: "route-policy"}
	key := effective.ItemKey{Gateway: "b2/gw", Route: "b2/route"}
	want := []effective.RuleStatus{
		{Rule: "authentication.a", InEffect: []effective.ItemKey{key}, Replaced: []effective.ReplacedRuleAt{}},
		{Rule: "authorization.b", InEffect: []effective.ItemKey{}, Replaced: []effective.ReplacedRuleAt{{Path: key, By: &route, How: effective.Replaced}}},
	}
	if diff := cmp.Diff(want, s.RuleStatuses(gw)); diff != "" {
		t.Errorf("RuleStatuses (-want +got):\n%s", diff)
	}
	f1route := policy.Ref{Namespace: "f1", Name: "route-policy"}
	f1gw, _ := s.Policy(policy.Ref{Namespace: "f1", Name: "gw-policy"})
	unset := s.RuleStatuses(f1gw)[1]
	if diff := cmp.Diff(effective.RuleStatus{Rule: "authorization.b", InEffect: []effective.ItemKey{},
		Replaced: []effective.ReplacedRuleAt{{Path: effective.ItemKey{Gateway: "f1/gw", Route: "f1/route"}, By: &f1route, How: effective.Unset}}}, unset); diff != "" {
		t.Errorf("unset rule status (-want +got):\n%s", diff)
	}
	reach := s.Reach("authorization.b", nil)
	wantReach := []effective.ReachedPath{{Path: key, From: route}}
	if diff := cmp.Diff(wantReach, reach); diff != "" {
		t.Errorf("Reach (-want +got):\n%s", diff)
	}
}
