package gen

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Size of a generated world.
type Size struct {
	Gateways, Routes, Policies int
}

// World is a generated topology and its RateLimitPolicies.
type World struct {
	Input    topology.Input
	Kind     policy.Kind
	Policies []*policy.Policy
}

const appNamespaces = 50

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Generate builds a world. Route i attaches to Gateway i mod Gateways; a tenth of the policies (at
// most one per Gateway) target Gateways, the rest target routes.
func Generate(sz Size) World {
	w := World{Kind: policy.Builtin()[1]}
	from := gwv1.NamespacesFromAll
	for i := 0; i < sz.Gateways; i++ {
		w.Input.Gateways = append(w.Input.Gateways, gwv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: fmt.Sprintf("gw-%d", i)},
			Spec: gwv1.GatewaySpec{GatewayClassName: "example", Listeners: []gwv1.Listener{
				{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &from}}},
				{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &from}}},
			}},
		})
	}
	for i := 0; i < sz.Routes; i++ {
		gw := i % max(sz.Gateways, 1)
		w.Input.HTTPRoutes = append(w.Input.HTTPRoutes, gwv1.HTTPRoute{
			ObjectMeta: metav1.ObjectMeta{Namespace: RouteNamespace(i), Name: fmt.Sprintf("route-%d", i)},
			Spec: gwv1.HTTPRouteSpec{
				CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: gwv1.ObjectName(fmt.Sprintf("gw-%d", gw)), Namespace: ptr.To(gwv1.Namespace("infra")), SectionName: ptr.To(gwv1.SectionName("http"))}}},
				Rules:           []gwv1.HTTPRouteRule{{Name: ptr.To(gwv1.SectionName("main"))}, {Name: ptr.To(gwv1.SectionName("admin"))}},
			},
		})
	}
	gwPolicies := min(sz.Policies/10, sz.Gateways)
	for i := 0; i < gwPolicies; i++ {
		w.Policies = append(w.Policies, GatewayPolicy(w.Kind, i, i))
	}
	for i := 0; i < sz.Policies-gwPolicies && i < sz.Routes; i++ {
		w.Policies = append(w.Policies, RoutePolicy(w.Kind, i, i))
	}
	return w
}

// RouteNamespace is the namespace of route i.
func RouteNamespace(i int) string { return fmt.Sprintf("app-%d", i%appNamespaces) }

// GatewayPolicy is policy number n on gateway gw: merge defaults, a merge override with a constraint.
func GatewayPolicy(k policy.Kind, n, gw int) *policy.Policy {
	return &policy.Policy{
		Kind: k, Ref: policy.Ref{Namespace: "infra", Name: fmt.Sprintf("gw-policy-%d", n)}, Created: epoch.Add(time.Duration(n) * time.Second),
		Targets:  []policy.TargetRef{{Group: topology.Group, Kind: "Gateway", Name: fmt.Sprintf("gw-%d", gw)}},
		Defaults: &policy.Block{Strategy: policy.StrategyMerge, Rules: map[string]interface{}{"global": rate(1000), "per-user": rate(100), "burst": rate(50)}},
		Overrides: &policy.Block{Strategy: policy.StrategyMerge, When: "has(self.limits.expensive) && self.limits.expensive.rates[0].limit > 10",
			Rules: map[string]interface{}{"expensive": rate(10)}},
	}
}

// RoutePolicy is policy number n on route r: bare limits, one of which a gateway constraint clips,
// and an unset of an inherited default.
func RoutePolicy(k policy.Kind, n, r int) *policy.Policy {
	return &policy.Policy{
		Kind: k, Ref: policy.Ref{Namespace: RouteNamespace(r), Name: fmt.Sprintf("route-policy-%d", n)}, Created: epoch.Add(time.Hour + time.Duration(n)*time.Second),
		Targets: []policy.TargetRef{{Group: topology.Group, Kind: "HTTPRoute", Name: fmt.Sprintf("route-%d", r)}},
		Bare:    &policy.Block{Strategy: policy.StrategyAtomic, Rules: map[string]interface{}{"per-user": rate(20), "expensive": rate(50)}},
		Unset:   []string{"burst"},
	}
}

func rate(n int64) map[string]interface{} {
	return map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": n, "window": "1m"}}}
}

// KuadrantKind is Kuadrant's own RateLimitPolicy, managed with the kuadrant profile (as
// profiles/kuadrant/engine.KuadrantKind makes it, which this package does not import: the packages
// it generates for are below that one). A test that folds it links that package, whose model the
// engine then folds it with.
var KuadrantKind = policy.Kind{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"},
	Profile: policy.ProfileKuadrant, RulesField: "limits", TargetKinds: policy.DefaultTargetKinds}

// Kuadrant is the same world with Kuadrant's RateLimitPolicies: each Gateway policy keeps its merge
// defaults (a Kuadrant policy has one block), each route policy its bare limits (Kuadrant has no
// unset).
func Kuadrant(w World) World {
	out := World{Input: w.Input, Kind: KuadrantKind}
	for _, p := range w.Policies {
		out.Policies = append(out.Policies, KuadrantPolicy(p))
	}
	return out
}

// KuadrantPolicy is p as a Kuadrant RateLimitPolicy: its defaults (or bare limits), without overrides
// and unset.
func KuadrantPolicy(p *policy.Policy) *policy.Policy {
	q := *p
	q.Kind, q.Overrides, q.Unset = KuadrantKind, nil, nil
	return &q
}
