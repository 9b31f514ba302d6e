package validate_test

import (
	"strings"
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

// TestUpdateFallbacks: an update that takes rules of the stored version out of effect (a rule
// removed, overrides made defaults that a route's own rule replaces) warns what takes their place and on how many
// routes, as a delete does; an update that keeps its rules in effect (a body edited) says no such
// thing.
func TestUpdateFallbacks(t *testing.T) {
	gwOverride := limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  overrides: {strategy: merge, limits: {o: {rates: [{limit: 1, window: 1m}]}, k: {rates: [{limit: 2, window: 1m}]}}}\n")
	routeOwn := limits("shop", "p", "2024-02-01T00:00:00Z", routeTarget+"  limits: {o: {rates: [{limit: 5, window: 1m}]}, r: {rates: [{limit: 5, window: 1m}]}}\n")
	tests := []struct {
		name   string
		update string
		want   []string // the PRC-W027 lines
	}{
		{name: "a rule removed from the override: the route's own rule takes its place on its route, nothing on the other",
			update: limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  overrides: {strategy: merge, limits: {k: {rates: [{limit: 2, window: 1m}]}}}\n"),
			want: []string{
				"PRC-W027 this change leaves `o` with no rule in effect on 1 route",
				"PRC-W027 this change puts RateLimitPolicy shop/p's `o` in effect instead on 1 route",
			}},
		{name: "merge overrides made merge defaults: the route policy's rule of the same id replaces one on its route",
			update: limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  defaults: {strategy: merge, limits: {o: {rates: [{limit: 1, window: 1m}]}, k: {rates: [{limit: 2, window: 1m}]}}}\n"),
			want: []string{
				"PRC-W027 this change puts RateLimitPolicy shop/p's `o` in effect instead on 1 route",
			}},
		{name: "a body edited: the rules stay in effect",
			update: limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  overrides: {strategy: merge, limits: {o: {rates: [{limit: 3, window: 1m}]}, k: {rates: [{limit: 2, window: 1m}]}}}\n"),
			want:   nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := world(t, "RateLimitPolicy", gwOverride, routeOwn)
			out := validate.Review(snap, obj(t, tt.update), settings.Defaults(), snap.Cond)
			if len(out.Errs) > 0 {
				t.Fatalf("the update is rejected: %v", out.Errs)
			}
			var got []string
			for _, w := range out.Warnings {
				if strings.HasPrefix(w, "PRC-W027 ") {
					got = append(got, w)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("PRC-W027 warnings (-want +got):\n%s\nall: %q", diff, out.Warnings)
			}
		})
	}
}
