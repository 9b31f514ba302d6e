package validate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/validate"
)

// TestDeleteFallbacks: deleting a policy whose rules are in effect warns what takes their place, and
// on how many routes: another policy's rule of the same id, or nothing; a delete of a policy none of
// whose rules is in effect says no more than before.
func TestDeleteFallbacks(t *testing.T) {
	gwOverride := limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  overrides: {limits: {o: {rates: [{limit: 1, window: 1m}]}}}\n")
	gwMerge := limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  overrides: {strategy: merge, limits: {o: {rates: [{limit: 1, window: 1m}]}}}\n")
	routeOwn := limits("shop", "p", "2024-02-01T00:00:00Z", routeTarget+"  limits: {o: {rates: [{limit: 5, window: 1m}]}, r: {rates: [{limit: 5, window: 1m}]}}\n")
	older := kuadrantLimits("team-a", "2024-01-01T00:00:00Z", routeTarget+"  limits: {global: {rates: [{limit: 9, window: 1m}]}}\n")
	newer := kuadrantLimits("team-b", "2024-02-01T00:00:00Z", routeTarget+"  limits: {burst: {rates: [{limit: 1, window: 1s}]}}\n")
	tests := []struct {
		name    string
		kind    string
		objects []string
		deleted string
		want    []string
	}{
		{name: "a Gateway override gives way to a route's own rule on its route, to nothing on the other",
			kind: "RateLimitPolicy", objects: []string{gwOverride, routeOwn}, deleted: gwOverride,
			want: []string{
				"PRC-N003 removing this policy changes the effective RateLimitPolicy of 2 routes",
				"PRC-W026 removing this policy leaves `o` with no rule in effect on 1 route",
				"PRC-W026 removing this policy puts RateLimitPolicy shop/p's `o` in effect instead on 1 route",
			}},
		{name: "a route policy under an atomic Gateway override holds nothing: its delete says nothing",
			kind: "RateLimitPolicy", objects: []string{gwOverride, routeOwn}, deleted: routeOwn, want: nil},
		{name: "a route policy under a merge override: the override stays, its own rule r goes",
			kind: "RateLimitPolicy", objects: []string{gwMerge, routeOwn}, deleted: routeOwn,
			want: []string{
				"PRC-N003 removing this policy changes the effective RateLimitPolicy of 1 route",
				"PRC-W026 removing this policy leaves `r` with no rule in effect on 1 route",
			}},
		{name: "Kuadrant: the older of two policies on one route holds nothing: its delete says nothing",
			kind: "RateLimitPolicy.kuadrant.io", objects: []string{older, newer}, deleted: older,
			want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := world(t, tt.kind, tt.objects...)
			if tt.kind == "RateLimitPolicy.kuadrant.io" {
				snap = kuadrantWorld(t, tt.kind, tt.objects...)
			}
			o := obj(t, tt.deleted)
			out := validate.ReviewDelete(snap, policy.Ref{Namespace: o.GetNamespace(), Name: o.GetName()}, settings.Defaults())
			if diff := cmp.Diff(tt.want, out.Warnings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
