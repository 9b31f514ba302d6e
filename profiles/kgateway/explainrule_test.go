package kgateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

// TestExplainRule: on the sample's delegation, per path beneath the target, the policies declaring
// the field from the top level down and what the fold did: the parent route's annotation
// (ShallowMergePreferParent, GetMergeStrategy's Overridable strategy) replaces the child's
// rateLimit; a field only the child sets is added; a deep field under DeepMergePreferParent holds
// from both policies.
func TestExplainRule(t *testing.T) {
	cart := effective.ItemKey{Gateway: "infra/gw", Route: "store/cart", Rule: "checkout"}
	root, cartLimits := policy.Ref{Namespace: "infra", Name: "root-limits"}, policy.Ref{Namespace: "store", Name: "cart-limits"}
	cases := []struct {
		name   string
		deep   bool
		target topology.Target
		rule   string
		want   []effective.Explanation
	}{
		{"the parent prefers itself", false, topology.Target{Kind: "HTTPRoute", Namespace: "store", Name: "cart"}, "rateLimit", []effective.Explanation{{
			Path: cart, Rule: "rateLimit", From: &root, Steps: []effective.Step{
				{Level: "route", Policy: root, Action: effective.Added},
				{Level: "route", Policy: cartLimits, Action: effective.Replaced, Other: &root, Detail: "route infra/root sets ShallowMergePreferParent"},
			}}}},
		{"a field only the child sets", false, topology.Target{Kind: "Gateway", Namespace: "infra", Name: "gw"}, "timeouts", []effective.Explanation{{
			Path: cart, Rule: "timeouts", From: &cartLimits, Steps: []effective.Step{{Level: "route", Policy: cartLimits, Action: effective.Added}}}}},
		{"deep merge keeps both", true, topology.Target{Kind: "HTTPRoute", Namespace: "infra", Name: "root"}, "transformation.request", []effective.Explanation{{
			Path: cart, Rule: "transformation.request", From: &root, Steps: []effective.Step{
				{Level: "route", Policy: root, Action: effective.Added},
				{Level: "route", Policy: cartLimits, Action: effective.Added},
			}}, {
			Path: effective.ItemKey{Gateway: "infra/gw", Route: "team-a/team-a", Rule: "rule-0"}, Rule: "transformation.request", From: &root,
			Steps: []effective.Step{{Level: "route", Policy: root, Action: effective.Added}}}}},
		{"another route's paths", false, topology.Target{Kind: "HTTPRoute", Namespace: "team-a", Name: "team-a"}, "timeouts", []effective.Explanation{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := sample(t)
			if c.deep {
				deepTransformations(in.Objects)
			}
			got, err := (Profile{}).ExplainRule(in, trafficPolicy, c.target, c.rule)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestReach: the paths whose merged TrafficPolicy holds a field, from which policy; with a policy,
// only where its value holds; a field no policy sets is an error.
func TestReach(t *testing.T) {
	root := policy.Ref{Namespace: "infra", Name: "root-limits"}
	cartLimits := policy.Ref{Namespace: "store", Name: "cart-limits"}
	cart := effective.ItemKey{Gateway: "infra/gw", Route: "store/cart", Rule: "checkout"}
	team := effective.ItemKey{Gateway: "infra/gw", Route: "team-a/team-a", Rule: "rule-0"}
	cases := []struct {
		name string
		rule string
		ref  *policy.Ref
		want []effective.ReachedPath
		err  string
	}{
		{"every path", "cors", nil, []effective.ReachedPath{{Path: cart, From: root}, {Path: team, From: root}}, ""},
		{"the child's value is replaced everywhere", "rateLimit", &cartLimits, []effective.ReachedPath{}, ""},
		{"the parent's", "rateLimit", &root, []effective.ReachedPath{{Path: cart, From: root}, {Path: team, From: root}}, ""},
		{"no policy sets it", "extAuth", nil, nil, `no TrafficPolicy.gateway.kgateway.dev declares rule "extAuth"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := (Profile{}).Reach(sample(t), trafficPolicy, c.rule, c.ref)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// deepTransformations turns the sample's root route to DeepMergePreferParent and gives both the
// root's and the cart's policies a transformation.
func deepTransformations(objs []*unstructured.Unstructured) {
	for _, u := range objs {
		switch {
		case u.GetKind() == "HTTPRoute" && u.GetName() == "root":
			u.SetAnnotations(map[string]string{engine.Annotation: string(engine.DeepPreferParent)})
		case u.GetKind() == engine.TrafficPolicy && (u.GetName() == "root-limits" || u.GetName() == "cart-limits"):
			_ = unstructured.SetNestedField(u.Object, map[string]interface{}{"request": map[string]interface{}{"add": []interface{}{map[string]interface{}{"name": "x-" + u.GetName(), "value": "1"}}}}, "spec", "transformation")
		}
	}
}
