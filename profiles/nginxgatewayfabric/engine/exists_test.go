package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// classes are NGINX Gateway Fabric's GatewayClass nginx (of topo's Gateway) and another
// controller's, with a Gateway of the other class that routes other-cart and the Service tea of
// namespace shop attach to or send to.
const classes = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: nginx}
spec: {controllerName: gateway.nginx.org/nginx-gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: other-gw, namespace: shop}
spec:
  gatewayClassName: other
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: other-cart, namespace: shop}
spec:
  parentRefs: [{name: other-gw}]
  rules: [{backendRefs: [{name: lone, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: lone, namespace: shop}`

// crossRoute is a Gateway open to every namespace and a route of namespace web that sends to Service pay of namespace shop, and the
// crossGrant the ReferenceGrant of shop that allows it.
const (
	crossRoute = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: open, namespace: shop}
spec:
  gatewayClassName: nginx
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: pay, namespace: web}
spec:
  parentRefs: [{name: open, namespace: shop}]
  rules: [{matches: [{path: {type: PathPrefix, value: /pay}}], backendRefs: [{name: pay, namespace: shop, port: 80}]}]`
	crossGrant = `
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: web-to-pay, namespace: shop}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: web}]
  to: [{group: "", kind: Service}]`
)

func ngfWorld(t *testing.T, docs ...string) *World {
	w := world(t, docs...)
	w.Controllers = []string{"gateway.nginx.org/nginx-gateway-controller"}
	return w
}

func ngfPolicy(kind, name, target, tkind string, minute string, fields string) string {
	group := "gateway.networking.k8s.io"
	if tkind == "Service" {
		group = "core"
	}
	version := "v1alpha1"
	if kind == ObservabilityPolicy {
		version = "v1alpha2"
	}
	ref := sprintf("targetRefs: [{group: %s, kind: %s, name: %s}]", group, tkind, target)
	if kind == ClientSettingsPolicy {
		ref = sprintf("targetRef: {group: %s, kind: %s, name: %s}", group, tkind, target)
	}
	return sprintf(`
apiVersion: gateway.nginx.org/%s
kind: %s
metadata: {name: %s, namespace: shop, annotations: {test/minute: "%s"}}
spec:
  %s
  %s`, version, kind, name, minute, ref, fields)
}

// A target exists only in NGINX Gateway Fabric's graph (processPolicies): a policy on a Gateway of
// another GatewayClass, on a route attached only to such a Gateway, or on a Service only such a
// route sends to gets no status, and the write gets the no-effect warning, never Accepted.
func TestTargetOutsideGraph(t *testing.T) {
	cases := []struct {
		name, pol, want string
	}{
		{"Gateway of NGINX Gateway Fabric's class", ngfPolicy(ClientSettingsPolicy, "p", "gw", "Gateway", "1", "body: {maxSize: 1m}"), ReasonAccepted},
		{"Gateway of another class", ngfPolicy(ClientSettingsPolicy, "p", "other-gw", "Gateway", "1", "body: {maxSize: 1m}"), ReasonTargetNotFound},
		{"route attached to NGINX Gateway Fabric's Gateway", ngfPolicy(ClientSettingsPolicy, "p", "cart", "HTTPRoute", "1", "body: {maxSize: 1m}"), ReasonAccepted},
		{"route attached to another class's Gateway", ngfPolicy(ClientSettingsPolicy, "p", "other-cart", "HTTPRoute", "1", "body: {maxSize: 1m}"), ReasonTargetNotFound},
		{"Service a route of the graph sends to", ngfPolicy(UpstreamSettingsPolicy, "p", "tea", "Service", "1", "zoneSize: 1m"), ReasonAccepted},
		{"Service only another class's route sends to", ngfPolicy(UpstreamSettingsPolicy, "p", "lone", "Service", "1", "zoneSize: 1m"), ReasonTargetNotFound},
		{"Service no route sends to", ngfPolicy(UpstreamSettingsPolicy, "p", "nobody", "Service", "1", "zoneSize: 1m"), ReasonTargetNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := ngfWorld(t, topo, classes)
			p := policy(t, c.pol)
			if got := StatusOf(w.with(Write{New: p}).Decide(), p).Reason; got != c.want {
				t.Errorf("status: got %s, want %s", got, c.want)
			}
			pr := w.Project(Write{New: p})
			warned := len(pr.Warnings) == 1 && strings.HasPrefix(pr.Warnings[0], CodeNoTarget.ID+" ")
			if warned != (c.want == ReasonTargetNotFound) {
				t.Errorf("warnings: %q", pr.Warnings)
			}
		})
	}
}

// markConflictedPolicies groups policies by their TargetRefs, which hold only targets in the graph:
// two policies setting one field conflict through a target that exists, never through one that
// does not (here a Gateway of another class both also name).
func TestConflictOnlyThroughExistingTargets(t *testing.T) {
	older := `
apiVersion: gateway.nginx.org/v1alpha2
kind: ObservabilityPolicy
metadata: {name: old, namespace: shop, annotations: {test/minute: "1"}}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: other-cart}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shadow}]
  tracing: {strategy: ratio}`
	newer := `
apiVersion: gateway.nginx.org/v1alpha2
kind: ObservabilityPolicy
metadata: {name: new, namespace: shop, annotations: {test/minute: "2"}}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: other-cart}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: tea}]
  tracing: {strategy: ratio}`
	w := ngfWorld(t, topo, classes, shadow, older, newer)
	st := w.Decide()
	got := map[string]string{}
	for _, p := range w.Policies {
		got[p.Ref.Name] = StatusOf(st, p).Reason
	}
	want := map[string]string{"old": ReasonAccepted, "new": ReasonAccepted}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
}

// An UpstreamSettingsPolicy applies to a Service a route of another namespace sends to, as
// buildReferencedServices counts it, when a ReferenceGrant allows the reference
// (validateRouteBackendRef); without one the Service is not referenced and the policy has no status.
func TestUpstreamSettingsAcrossNamespaces(t *testing.T) {
	pol := ngfPolicy(UpstreamSettingsPolicy, "pay", "pay", "Service", "1", "zoneSize: 1m")
	for _, c := range []struct {
		name   string
		docs   []string
		want   string
		routes int
	}{
		{"granted", []string{topo, classes, crossRoute, crossGrant, pol}, ReasonAccepted, 1},
		{"not granted", []string{topo, classes, crossRoute, pol}, ReasonTargetNotFound, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := ngfWorld(t, c.docs...)
			st := w.Decide()
			if got := StatusOf(st, w.Policies[0]).Reason; got != c.want {
				t.Errorf("status: got %s, want %s", got, c.want)
			}
			items := w.Items(UpstreamSettingsPolicy, st)
			if len(items) != c.routes {
				t.Fatalf("items: %+v", items)
			}
			if c.routes == 1 {
				want := map[string]string{"shop/pay.zoneSize": "shop/pay"}
				if d := cmp.Diff(want, items[0].Sources); d != "" || items[0].Route != "web/pay" {
					t.Errorf("route %s, sources (-want +got):\n%s", items[0].Route, d)
				}
			}
		})
	}
}

// TestReferencedIsEachServedRoutesBackends: the Services routes send to, computed over the routes'
// entries with each Gateway's service decided once, are those the backends of each route in NGINX
// Gateway Fabric's graph name, route by route.
func TestReferencedIsEachServedRoutesBackends(t *testing.T) {
	for name, docs := range map[string][]string{
		"routes of its class and of another":   {topo, classes},
		"a route to another namespace":         {topo, crossRoute},
		"a route to another namespace granted": {topo, crossRoute, crossGrant},
	} {
		t.Run(name, func(t *testing.T) {
			w := world(t, docs...)
			want := map[string]bool{}
			for k := range w.HTTPRoutes {
				if w.routeInGraph("HTTPRoute", k) {
					for _, s := range w.backends("HTTPRoute", k) {
						want[s.String()] = true
					}
				}
			}
			for k := range w.GRPCRoutes {
				if w.routeInGraph("GRPCRoute", k) {
					for _, s := range w.backends("GRPCRoute", k) {
						want[s.String()] = true
					}
				}
			}
			got := map[string]bool{}
			for s := range w.referenced() {
				got[s.String()] = true
			}
			if len(want) == 0 {
				t.Fatal("the world's routes send to no Service: the case shows nothing")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("referenced (-route by route +computed):\n%s", diff)
			}
		})
	}
}
