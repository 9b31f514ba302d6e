package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
)

const (
	gwCSP = `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: gw-csp, namespace: shop, annotations: {test/minute: "1"}}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  body: {maxSize: 10m}
  keepAlive: {requests: 100}`
	cartCSP = `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: cart-csp, namespace: shop, annotations: {test/minute: "2"}}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  body: {maxSize: 1m}`
	gwCSPNewer = `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: gw-csp-2, namespace: shop, annotations: {test/minute: "3"}}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  body: {maxSize: 20m, timeout: 30s}`
	gwCSPOther = `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: gw-csp-3, namespace: shop, annotations: {test/minute: "3"}}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  body: {timeout: 30s}`
	// shadow shares cart's hostname, port and path, on the same Gateway.
	shadow = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shadow, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /cart}}]}]`
	uspZone = `
apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata: {name: zone, namespace: shop, annotations: {test/minute: "1"}}
spec:
  targetRefs: [{group: core, kind: Service, name: cart}]
  zoneSize: 1m`
	uspKeepAlive = `
apiVersion: gateway.nginx.org/v1alpha1
kind: UpstreamSettingsPolicy
metadata: {name: keepalive, namespace: shop, annotations: {test/minute: "2"}}
spec:
  targetRefs: [{group: core, kind: Service, name: cart}, {group: core, kind: Service, name: tea}]
  keepAlive: {connections: 32}`
	tracing = `
apiVersion: gateway.nginx.org/v1alpha2
kind: ObservabilityPolicy
metadata: {name: trace-%s, namespace: shop, annotations: {test/minute: "%s"}}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: tea}]
  tracing: {strategy: ratio, ratio: 10}`
)

// ClientSettingsPolicy is inherited: on route cart, its own body.maxSize overrides the Gateway's
// field by field, keepAlive.requests comes from the Gateway; route tea has the Gateway's alone (NGINX
// inherits client_max_body_size and keepalive_requests from server to location unless the location
// sets them: clientsettings.Generator writes them per server and per location).
func TestClientSettingsInherited(t *testing.T) {
	w := world(t, topo, gwCSP, cartCSP)
	got := w.Items(ClientSettingsPolicy, w.Decide())
	want := []effective.Item{
		{Kind: ClientSettingsPolicy, Gateway: "shop/gw", Route: "shop/cart",
			Spec:    map[string]interface{}{"body": map[string]interface{}{"maxSize": "1m"}, "keepAlive": map[string]interface{}{"requests": float64(100)}},
			Sources: map[string]string{"body.maxSize": "shop/cart-csp", "keepAlive.requests": "shop/gw-csp"}},
		{Kind: ClientSettingsPolicy, Gateway: "shop/gw", Route: "shop/tea",
			Spec:    map[string]interface{}{"body": map[string]interface{}{"maxSize": "10m"}, "keepAlive": map[string]interface{}{"requests": float64(100)}},
			Sources: map[string]string{"body.maxSize": "shop/gw-csp", "keepAlive.requests": "shop/gw-csp"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// markConflictedPolicies: of two policies of one kind on one target that set one field, the newer is
// Conflicted and applies nothing; policies setting other fields merge.
func TestConflicts(t *testing.T) {
	tests := []struct {
		name   string
		docs   []string
		want   map[string]string // policy -> reason
		fields []string          // the conflicting fields of the newer
	}{
		{name: "the newer policy setting the same field is Conflicted", docs: []string{topo, gwCSP, gwCSPNewer},
			want: map[string]string{"shop/gw-csp": ReasonAccepted, "shop/gw-csp-2": ReasonConflicted}, fields: []string{"body.maxSize"}},
		{name: "policies setting other fields both hold", docs: []string{topo, gwCSP, gwCSPOther},
			want: map[string]string{"shop/gw-csp": ReasonAccepted, "shop/gw-csp-3": ReasonAccepted}},
		{name: "a Gateway policy and a route policy never conflict", docs: []string{topo, gwCSP, cartCSP},
			want: map[string]string{"shop/gw-csp": ReasonAccepted, "shop/cart-csp": ReasonAccepted}},
		{name: "tracing set twice on a route: the newer is Conflicted", docs: []string{topo, sprintf(tracing, "a", "1"), sprintf(tracing, "b", "2")},
			want: map[string]string{"shop/trace-a": ReasonAccepted, "shop/trace-b": ReasonConflicted}, fields: []string{"tracing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := world(t, tt.docs...)
			st := w.Decide()
			got := map[string]string{}
			var fields []string
			for _, p := range w.Policies {
				s := StatusOf(st, p)
				got[p.Ref.String()] = s.Reason
				if s.Reason == ReasonConflicted {
					fields = s.Fields
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.fields, fields); diff != "" {
				t.Errorf("conflicting fields (-want +got):\n%s", diff)
			}
		})
	}
}

// checkTargetRoutesForOverlap: a policy on route cart is not accepted while route shadow, which it
// does not target, shares shop/gw:shop.example.com:80/cart; it is when it targets both, or when the
// other route's path differs.
func TestRouteOverlap(t *testing.T) {
	both := `
apiVersion: gateway.nginx.org/v1alpha2
kind: ObservabilityPolicy
metadata: {name: both, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shadow}]
  tracing: {strategy: parent}`
	tests := []struct {
		name, want string
		docs       []string
	}{
		{name: "another route shares hostname, port and path", docs: []string{topo, shadow, cartCSP}, want: ReasonTargetConflict},
		{name: "no other route shares them", docs: []string{topo, cartCSP}, want: ReasonAccepted},
		{name: "the policy targets both routes", docs: []string{topo, shadow, both}, want: ReasonAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := world(t, tt.docs...)
			p := w.Policies[0]
			if got := StatusOf(w.Decide(), p); got.Reason != tt.want {
				t.Errorf("%s: %s (%s), want %s", p.Ref, got.Reason, got.Message, tt.want)
			}
		})
	}
}

// grpc is a GRPCRoute of namespace shop on Gateway gw, host shop.example.com, with the matches m.
func grpc(name, matches string) string {
	return sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: %s, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: %s, backendRefs: [{name: cart, port: 9000}]}]`, name, matches)
}

// checkTargetRoutesForOverlap over GRPCRoutes (internal/controller/state/graph/policies.go:
// processPolicies collects targeted HTTPRoutes and GRPCRoutes alike, and the routes compared are all
// the graph's L7Routes; a GRPCRoute's matches are paths by ConvertGRPCMatches in grpcroute.go:
// "/service/method" for a method match, "/" for none or a service alone).
func TestRouteOverlapGRPC(t *testing.T) {
	csp := func(kind, name string) string {
		return sprintf(`
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: csp, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: %s, name: %s}
  body: {maxSize: 1m}`, kind, name)
	}
	method := `[{method: {service: shop.Cart, method: Add}}]`
	tests := []struct {
		name, want, msg string
		docs            []string
	}{
		{name: "two GRPCRoutes with the same method: the targeted one conflicts", docs: []string{topo, grpc("g1", method), grpc("g2", method), csp("GRPCRoute", "g1")},
			want: ReasonTargetConflict, msg: `Policy cannot be applied to target "shop/g1" since another Route "shop/g2" shares a namespace/gateway-name:hostname:port/path combination with this target (shop/gw:shop.example.com:80/shop.Cart/Add)`},
		{name: "GRPCRoutes with other methods do not", docs: []string{topo, grpc("g1", method), grpc("g2", `[{method: {service: shop.Cart, method: Remove}}]`), csp("GRPCRoute", "g1")},
			want: ReasonAccepted},
		{name: "a GRPCRoute without matches takes / and meets an HTTPRoute on /", docs: []string{topo, grpc("g1", `[]`), rootRoute, csp("GRPCRoute", "g1")},
			want: ReasonTargetConflict, msg: `Policy cannot be applied to target "shop/g1" since another Route "shop/root" shares a namespace/gateway-name:hostname:port/path combination with this target (shop/gw:shop.example.com:80/)`},
		{name: "an HTTPRoute target meets a GRPCRoute whose service-only match is /", docs: []string{topo, grpc("g1", `[{method: {service: shop.Cart}}]`), rootRoute, csp("HTTPRoute", "root")},
			want: ReasonTargetConflict, msg: `Policy cannot be applied to target "shop/root" since another Route "shop/g1" shares a namespace/gateway-name:hostname:port/path combination with this target (shop/gw:shop.example.com:80/)`},
		{name: "a route of the targeted name counts as targeted whatever its kind", docs: []string{topo, grpc("root", `[]`), rootRoute, csp("HTTPRoute", "root")},
			want: ReasonAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := world(t, tt.docs...)
			p := w.Policies[0]
			got := StatusOf(w.Decide(), p)
			if diff := cmp.Diff([2]string{tt.want, tt.msg}, [2]string{got.Reason, got.Message}); diff != "" {
				t.Errorf("%s (-want +got):\n%s", p.Ref, diff)
			}
		})
	}
}

// rootRoute is route shadow renamed root, on / instead of /cart.
var rootRoute = strings.NewReplacer("name: shadow", "name: root", "value: /cart", "value: /").Replace(shadow)

// upstreamsettings.Processor applies to the Services a GRPCRoute sends to as to an HTTPRoute's.
func TestUpstreamSettingsGRPC(t *testing.T) {
	w := world(t, topo, grpc("g1", `[]`), uspZone)
	var got []string
	for _, it := range w.Items(UpstreamSettingsPolicy, w.Decide()) {
		got = append(got, it.Route+" "+it.Sources["cart.zoneSize"])
	}
	if diff := cmp.Diff([]string{"shop/cart shop/zone", "shop/g1 shop/zone"}, got); diff != "" {
		t.Errorf("routes with the Service's settings (-want +got):\n%s", diff)
	}
}

// upstreamsettings.Processor merges the fields of every valid policy on a Service.
func TestUpstreamSettingsMerge(t *testing.T) {
	w := world(t, topo, uspZone, uspKeepAlive)
	got := w.Items(UpstreamSettingsPolicy, w.Decide())
	want := []effective.Item{
		{Kind: UpstreamSettingsPolicy, Gateway: "shop/gw", Route: "shop/cart",
			Spec:    map[string]interface{}{"cart": map[string]interface{}{"zoneSize": "1m", "keepAlive": map[string]interface{}{"connections": float64(32)}}},
			Sources: map[string]string{"cart.zoneSize": "shop/zone", "cart.keepAlive.connections": "shop/keepalive"}},
		{Kind: UpstreamSettingsPolicy, Gateway: "shop/gw", Route: "shop/tea",
			Spec:    map[string]interface{}{"tea": map[string]interface{}{"keepAlive": map[string]interface{}{"connections": float64(32)}}},
			Sources: map[string]string{"tea.keepAlive.connections": "shop/keepalive"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// What a write gets: the refusal of an overlapping route target with its field path, and the
// warnings of a conflict, a displacement and Gateway settings overridden on a route.
func TestProject(t *testing.T) {
	tests := []struct {
		name      string
		docs      []string
		write     string
		old       bool // the written policy is stored already (an update)
		wantErrs  []string
		wantWarns []string
	}{
		{name: "a route target sharing hostname:port/path is refused at its field path", docs: []string{topo, shadow}, write: cartCSP,
			wantErrs: []string{`spec.targetRef: Forbidden: PRC-E260 Policy cannot be applied to target "shop/cart" since another Route "shop/shadow" shares a namespace/gateway-name:hostname:port/path combination with this target (shop/gw:shop.example.com:80/cart)`}},
		{name: "a newer conflicting policy is warned Conflicted", docs: []string{topo, gwCSP}, write: gwCSPNewer,
			wantWarns: []string{"PRC-W260 ClientSettingsPolicy shop/gw-csp, older, sets body.maxSize on the same target: NGINX Gateway Fabric marks this policy Conflicted and applies none of it"}},
		{name: "an older policy taking a field a newer one sets displaces it", docs: []string{topo, gwCSPOther}, write: gwCSP + "\n  body: {maxSize: 10m, timeout: 10s}",
			wantWarns: []string{
				"PRC-W263 body.maxSize is overridden on route shop/cart by ClientSettingsPolicy shop/cart-csp",
				"PRC-W261 ClientSettingsPolicy shop/gw-csp-3: this write makes it Conflicted (body.timeout also set by shop/gw-csp): its settings are no longer applied",
			}},
	}
	tests[2].docs = append(tests[2].docs, cartCSP)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := world(t, tt.docs...)
			p := policy(t, tt.write)
			pr := w.Project(Write{New: p})
			var errs []string
			for _, e := range pr.Errs {
				errs = append(errs, e.Error())
			}
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarns, pr.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
