package validate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
	kuadrant "github.com/precedent-dev/precedent/profiles/kuadrant/engine"
	"github.com/precedent-dev/precedent/validate"
)

// kuadrantWorld is world with Kuadrant's kinds managed too (profile kuadrant) and without the
// shared topology's AuthPolicy (of another group): the snapshot of kind (Kind.group) over
// testdata/topology.yaml and the extra objects.
func kuadrantWorld(t testing.TB, kind string, extra ...string) *effective.Snapshot {
	t.Helper()
	objs, err := manifest.Read("testdata/topology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	us := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		us = append(us, o.Unstructured)
	}
	for _, y := range extra {
		us = append(us, obj(t, y))
	}
	kinds := append(policy.Builtin(),
		kuadrant.KuadrantKind(schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"}))
	reg := policy.NewRegistry(kinds...)
	inv := inventory.Build(reg, us, nil)
	k, ok := reg.ByName(kind)
	if !ok {
		t.Fatalf("kind %s not managed", kind)
	}
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	return effective.NewSnapshot(k, topology.Build(inv.Topology), inv.Views(k), ev)
}

func kuadrantLimits(name, created, spec string) string {
	return "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: " + name + ", namespace: shop, creationTimestamp: '" + created + "'}\nspec:\n" + spec
}

func limits(ns, name, created, spec string) string {
	return "apiVersion: policy.precedent.dev/v1alpha1\nkind: RateLimitPolicy\nmetadata: {name: " + name + ", namespace: " + ns + ", creationTimestamp: '" + created + "'}\nspec:\n" + spec
}

const gwTarget = "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n"

// TestDisplacementWarnings: a write that takes rules of other policies out of the effective policy
// of its paths names those policies and the rule ids (never their values), says how, and in the
// words of the kind's model; a write that takes nothing away says nothing more. Rows run as a create
// (the policy absent before), an update (stored is the version before), or a delete.
func TestDisplacementWarnings(t *testing.T) {
	older := kuadrantLimits("team-a", "2024-01-01T00:00:00Z", routeTarget+"  limits: {per-user: {rates: [{limit: 2, window: 1m}]}, global: {rates: [{limit: 9, window: 1m}]}}\n")
	newer := kuadrantLimits("team-b", "2024-02-01T00:00:00Z", routeTarget+"  limits: {burst: {rates: [{limit: 1, window: 1s}]}}\n")
	gwAtomic := limits("gateway-system", "gw-limits", "2024-01-01T00:00:00Z", gwTarget+"  defaults: {limits: {g1: {rates: [{limit: 1, window: 1m}]}, g2: {rates: [{limit: 2, window: 1m}]}}}\n")
	tests := []struct {
		name   string
		kind   string
		extra  []string
		stored string // the version before an update ("" for a create)
		policy string
		delete bool
		want   []string
	}{
		{name: "Kuadrant: the newer of two bare policies on one route replaces the older's limits",
			kind: "RateLimitPolicy.kuadrant.io", extra: []string{older}, policy: newer,
			want: []string{"PRC-W010 replaces shop/team-a's `global` and `per-user` on route shop/cart (Kuadrant: the newer policy on one target wins)"}},
		{name: "Kuadrant: an update of the newer policy that changes its limits displaces nothing more",
			kind: "RateLimitPolicy.kuadrant.io", extra: []string{older}, stored: newer,
			policy: kuadrantLimits("team-b", "2024-02-01T00:00:00Z", routeTarget+"  limits: {burst: {rates: [{limit: 3, window: 1s}]}}\n"),
			want:   nil},
		{name: "Kuadrant: deleting the newer policy gives the route back to the older: nothing of others taken",
			kind: "RateLimitPolicy.kuadrant.io", extra: []string{older}, stored: newer, delete: true,
			want: []string{
				"PRC-N003 removing this policy changes the effective RateLimitPolicy of 1 route",
				"PRC-W026 removing this policy leaves `burst` with no rule in effect on 1 route",
			}},
		{name: "Kuadrant: a route policy replaces the Gateway's atomic defaults",
			kind: "RateLimitPolicy.kuadrant.io",
			extra: []string{"apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: gw, namespace: gateway-system, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n" + gwTarget +
				"  defaults: {limits: {g: {rates: [{limit: 1, window: 1m}]}}}\n"},
			policy: newer,
			want:   []string{"PRC-N005 replaces gateway-system/gw's `g` on route shop/cart (Kuadrant: a more specific policy's rules replace defaults)"}},
		{name: "defaults-overrides: a route policy replaces the Gateway's atomic defaults, on its route only",
			kind: "RateLimitPolicy", extra: []string{gwAtomic},
			policy: limits("shop", "p", "2024-02-01T00:00:00Z", routeTarget+"  limits: {r: {rates: [{limit: 5, window: 1m}]}}\n"),
			want:   []string{"PRC-N005 replaces gateway-system/gw-limits's `g1` and `g2` on route shop/cart (defaults-overrides: a more specific policy's rules replace defaults)"}},
		{name: "defaults-overrides: the older of two policies on one route wins when it gains rules",
			kind: "RateLimitPolicy",
			extra: []string{limits("shop", "newer", "2024-03-01T00:00:00Z", routeTarget+"  limits: {nn: {rates: [{limit: 5, window: 1m}]}}\n"),
				limits("shop", "older", "2024-01-01T00:00:00Z", routeTarget+"  unset: [nothing]\n")},
			stored: limits("shop", "older", "2024-01-01T00:00:00Z", routeTarget+"  unset: [nothing]\n"),
			policy: limits("shop", "older", "2024-01-01T00:00:00Z", routeTarget+"  limits: {o: {rates: [{limit: 5, window: 1m}]}}\n"),
			want: []string{
				"PRC-W010 replaces shop/newer's `nn` on route shop/cart (defaults-overrides: the oldest policy on one target wins)",
			}},
		{name: "defaults-overrides: an unset removes the Gateway's default and says unset",
			kind: "AuthPolicy", policy: authPolicy("p", routeTarget+"  rules: {authorization: {c: {}}}\n  unset: [authentication.a]\n"),
			want: []string{
				"PRC-W010 unsets gateway-system/gw-policy's `authentication.a` on route shop/cart (defaults-overrides: a more specific policy's unset removes a default)",
			}},
		{name: "defaults-overrides: a rule that keeps a Gateway merge default out replaces it; a new one takes nothing",
			kind: "AuthPolicy", policy: authPolicy("p", routeTarget+"  rules: {authentication: {a: {}}, authorization: {c: {}}}\n"),
			want: []string{
				"PRC-N005 replaces gateway-system/gw-policy's `authentication.a` on route shop/cart (defaults-overrides: a more specific policy's rules replace defaults)",
			}},
		{name: "defaults-overrides: a rule the Gateway's override replaces is warned about once, as before",
			kind: "AuthPolicy", policy: authPolicy("p", routeTarget+"  rules: {authorization: {b: {}}}\n"),
			want: []string{"PRC-W002 rule authorization.b on route shop/cart is overridden by AuthPolicy gateway-system/gw-policy"}},
		{name: "defaults-overrides: an override of the Gateway names what it replaces, once per rule",
			kind:   "RateLimitPolicy",
			extra:  []string{limits("shop", "p", "2024-02-01T00:00:00Z", routeTarget+"  limits: {r: {rates: [{limit: 5, window: 1m}]}}\n")},
			policy: limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  overrides: {limits: {o: {rates: [{limit: 1, window: 1m}]}}}\n"),
			want: []string{
				"PRC-N003 this write changes the effective RateLimitPolicy of 2 routes",
				"PRC-W001 spec.overrides replaces rule r of RateLimitPolicy shop/p on route shop/cart",
			}},
		{name: "defaults-overrides: deleting a policy that kept a Gateway override's condition false takes others' rules away",
			kind: "RateLimitPolicy",
			extra: []string{
				limits("gateway-system", "gw-o", "2024-01-01T00:00:00Z", gwTarget+"  overrides: {when: '!has(self.limits.x)', limits: {z: {rates: [{limit: 1, window: 1m}]}}}\n"),
				limits("shop", "q", "2024-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart, sectionName: main}\n  limits: {yy: {rates: [{limit: 5, window: 1m}]}}\n"),
			},
			stored: limits("shop", "p", "2024-02-01T00:00:00Z", routeTarget+"  defaults: {strategy: merge, limits: {x: {rates: [{limit: 5, window: 1m}]}}}\n"),
			delete: true,
			want: []string{
				"PRC-N003 removing this policy changes the effective RateLimitPolicy of 1 route",
				"PRC-W026 removing this policy leaves `x` with no rule in effect on 1 route",
				"PRC-W010 removing this policy takes away shop/q's `yy` on route shop/cart",
			}},
		{name: "GEP-713: a route default of a field the Gateway defaults replaces it",
			kind: "TrafficPolicy",
			extra: []string{"apiVersion: policy.precedent.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: gw-traffic, namespace: gateway-system, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n" + gwTarget +
				"  default: {timeouts: {request: 10s, connect: 1s}}\n"},
			policy: "apiVersion: policy.precedent.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: shop}\nspec:\n" + routeTarget + "  default: {timeouts: {request: 2s}}\n",
			want:   []string{"PRC-N005 replaces gateway-system/gw-traffic's `timeouts.request` on route shop/cart (GEP-713: a more specific policy's rules replace defaults)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra := tt.extra
			if tt.stored != "" {
				extra = append(append([]string(nil), extra...), tt.stored)
			}
			var snap *effective.Snapshot
			if tt.kind == "RateLimitPolicy.kuadrant.io" {
				snap = kuadrantWorld(t, tt.kind, extra...)
			} else {
				snap = world(t, tt.kind, extra...)
			}
			s := settings.Defaults()
			var out validate.Outcome
			if tt.delete {
				o := obj(t, tt.stored)
				out = validate.ReviewDelete(snap, policy.Ref{Namespace: o.GetNamespace(), Name: o.GetName()}, s)
			} else {
				o := obj(t, tt.policy)
				before := snap
				if tt.stored == "" {
					before = snap.Without(policy.Ref{Namespace: o.GetNamespace(), Name: o.GetName()})
				}
				out = validate.Review(before, o, s, snap.Cond)
			}
			if len(out.Errs) > 0 {
				t.Fatalf("unexpected errors: %v", out.Errs)
			}
			if diff := cmp.Diff(tt.want, out.Warnings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
