package validate_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/validate"
)

// TestAffectedPaths: each warning of a write names the Gateway/route paths it is about, as
// `precedent effective` names them; a warning that is about no path (a missing target) names none.
// The webhook's Review gives the same lines and no paths.
func TestAffectedPaths(t *testing.T) {
	gwPolicy := "apiVersion: policy.precedent.dev/v1alpha1\nkind: AuthPolicy\nmetadata: {name: gw-policy, namespace: gateway-system, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n" +
		"  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  defaults: {strategy: merge, rules: {authentication: {a: {x: 1}}}}\n"
	tests := []struct {
		name   string
		extra  []string
		policy string
		want   map[string][]string
	}{
		{name: "a route rule overridden by a Gateway policy: the route's path",
			policy: authPolicy("p", routeTarget+"  rules: {authorization: {b: {}, c: {}}}\n"),
			want: map[string][]string{
				"PRC-W002 rule authorization.b on route shop/cart is overridden by AuthPolicy gateway-system/gw-policy": {"gateway-system/gw → shop/cart"},
			}},
		{name: "a missing target: no path",
			policy: authPolicy("p", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: nope}\n  rules: {authorization: {x: {}}}\n"),
			want:   nil},
		{name: "a Gateway write: the summary and the replaced default name each route's path",
			extra:  []string{authPolicy("route-p", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: checkout}\n  rules: {authentication: {a: {}}}\n")},
			policy: gwPolicy,
			want: map[string][]string{
				"PRC-N003 this write changes the effective AuthPolicy of 1 route":                                      {"gateway-system/gw → shop/cart"},
				"PRC-N001 default rule authentication.a is replaced by AuthPolicy shop/route-p on route shop/checkout": {"gateway-system/gw → shop/checkout"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings.Defaults()
			ev, _ := cel.New(s.CELCostLimit)
			o := obj(t, tt.policy)
			snap := world(t, "AuthPolicy", tt.extra...).Without(policy.Ref{Namespace: o.GetNamespace(), Name: o.GetName()})
			out := validate.ReviewPaths(snap, o, s, ev)
			if d := cmp.Diff(tt.want, out.Affected); d != "" {
				t.Errorf("affected (-want +got):\n%s\nwarnings: %q", d, out.Warnings)
			}
			if plain := validate.Review(snap, o, s, ev); plain.Affected != nil || !slices.Equal(plain.Warnings, out.Warnings) {
				t.Errorf("Review (the webhook's) = %q with affected %v, want the same warnings and no paths", plain.Warnings, plain.Affected)
			}
		})
	}
}
