package envoygateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

func kindOf(t *testing.T, name string) policy.Kind {
	t.Helper()
	in := samples(t)
	k, err := in.Registry.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func r(ns, name string) policy.Ref { return policy.Ref{Namespace: ns, Name: name} }

func rp(ns, name string) *policy.Ref {
	x := r(ns, name)
	return &x
}

const gw = "envoy-gateway-system/eg"

// TestExplainRule: explain --target --rule for Envoy Gateway's kinds names, per path beneath the
// target, the policies that set the field and what became of each: replaced whole by a more
// specific policy without mergeType (securitypolicy.go: the most specific policy wins), merged by
// a rule-level StrategicMerge (both in effect), or in effect alone.
func TestExplainRule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  []string
		kind   string
		target topology.Target
		rule   string
		want   []effective.Explanation
	}{
		{"a route policy without mergeType replaces the Gateway's jwt", []string{"replacement.yaml"}, "SecurityPolicy",
			topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "cart"}, "jwt",
			[]effective.Explanation{{Path: effective.ItemKey{Gateway: gw, Route: "shop/cart"}, Rule: "jwt", Steps: []effective.Step{
				{Level: "gateway", Policy: r("envoy-gateway-system", "gw-auth"), Action: effective.Replaced, Other: rp("shop", "cart-authz"),
					Detail: "shop/cart-authz on HTTPRoute shop/cart replaces the whole policy (no mergeType)"},
			}}}},
		{"the Gateway's jwt is in effect where no route policy holds the route", []string{"replacement.yaml"}, "SecurityPolicy",
			topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "search"}, "jwt",
			[]effective.Explanation{{Path: effective.ItemKey{Gateway: gw, Route: "shop/search"}, Rule: "jwt", From: rp("envoy-gateway-system", "gw-auth"), Steps: []effective.Step{
				{Level: "gateway", Policy: r("envoy-gateway-system", "gw-auth"), Action: effective.Added},
			}}}},
		{"a rule-level merge keeps both policies' rate limits", []string{"ratelimits.yaml"}, "BackendTrafficPolicy",
			topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "cart"}, "rateLimit",
			[]effective.Explanation{
				{Path: effective.ItemKey{Gateway: gw, Route: "shop/cart", Rule: "browse"}, Rule: "rateLimit", From: rp("envoy-gateway-system", "gw-limits"), Steps: []effective.Step{
					{Level: "gateway", Policy: r("envoy-gateway-system", "gw-limits"), Action: effective.Added},
				}},
				{Path: effective.ItemKey{Gateway: gw, Route: "shop/cart", Rule: "pay"}, Rule: "rateLimit", From: rp("shop", "pay-limits"), Steps: []effective.Step{
					{Level: "gateway", Policy: r("envoy-gateway-system", "gw-limits"), Action: effective.Added, Detail: "merged into shop/pay-limits (mergeType StrategicMerge)"},
					{Level: "rule", Policy: r("shop", "pay-limits"), Action: effective.Added, Detail: "merged with envoy-gateway-system/gw-limits (mergeType StrategicMerge)"},
				}},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Profile{}.ExplainRule(samples(t, tc.files...), kindOf(t, tc.kind), tc.target, tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("explanations (-want +got):\n%s", d)
			}
		})
	}
	if _, err := (Profile{}).ExplainRule(samples(t, "replacement.yaml"), kindOf(t, "SecurityPolicy"), topology.Target{Kind: "Gateway", Namespace: "envoy-gateway-system", Name: "eg"}, "nope"); err == nil {
		t.Error("a rule no policy declares: no error")
	}
}

// TestReach: explain --reach lists every path whose effective policy holds the field, once per
// policy its value comes from (a merged field names both), and with --policy only that policy's.
func TestReach(t *testing.T) {
	in := samples(t, "ratelimits.yaml")
	k := kindOf(t, "BackendTrafficPolicy")
	got, err := Profile{}.Reach(in, k, "rateLimit", nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range got {
		paths = append(paths, p.Path.Route+"#"+p.Path.Rule+" "+p.From.String())
	}
	wantPaths := []string{
		"shop/cart#browse envoy-gateway-system/gw-limits",
		"shop/cart#pay envoy-gateway-system/gw-limits", "shop/cart#pay shop/pay-limits", // merged: both
		"shop/search# envoy-gateway-system/gw-limits",
		"shop/shelf# envoy-gateway-system/gw-limits",
	}
	if d := cmp.Diff(wantPaths, paths); d != "" {
		t.Errorf("reach of rateLimit (-want +got):\n%s", d)
	}
	mine, err := Profile{}.Reach(in, k, "rateLimit", rp("shop", "pay-limits"))
	if err != nil {
		t.Fatal(err)
	}
	want := []effective.ReachedPath{{Path: effective.ItemKey{Gateway: gw, Route: "shop/cart", Rule: "pay"}, From: r("shop", "pay-limits")}}
	if d := cmp.Diff(want, mine); d != "" {
		t.Errorf("reach of shop/pay-limits (-want +got):\n%s", d)
	}
}
