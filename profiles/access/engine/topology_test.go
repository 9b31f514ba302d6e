package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestNewTopology(t *testing.T) {
	docs := []string{`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: example
  listeners:
  - {name: same, protocol: HTTP, port: 80}
  - {name: all, protocol: HTTPS, port: 443, allowedRoutes: {namespaces: {from: All}}}
  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}}}
`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: same-ns, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs:
    - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: a}
    - {name: a-service, port: 80}
`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: via-all, namespace: shop}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: all}]
  rules:
  - backendRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: b}]
`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: via-same, namespace: shop}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: same}]
  rules:
  - backendRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: not-attached}]
`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: via-tcp, namespace: shop}
spec:
  parentRefs: [{name: gw, namespace: infra, port: 9000}]
  rules:
  - backendRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: tcp-not-attached}]
`, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: unknown-gateway, namespace: shop}
spec:
  parentRefs: [{name: elsewhere}]
  rules:
  - backendRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: c, namespace: tools}]
`}
	var objs []*unstructured.Unstructured
	for _, d := range docs {
		objs = append(objs, decodeYAML(t, d))
	}
	topo, err := NewTopology(objs, DefaultSettings())
	if err != nil {
		t.Fatalf("NewTopology: %v", err)
	}
	got := map[string][]string{
		"infra/gw":       topo.BackendsBehind("infra/gw"),
		"shop/elsewhere": topo.BackendsBehind("shop/elsewhere"),
		"shop/b":         topo.GatewaysInFront("shop/b"),
	}
	want := map[string][]string{
		"infra/gw":       {"infra/a", "shop/b"},
		"shop/elsewhere": {"tools/c"},
		"shop/b":         {"infra/gw"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("topology mismatch (-want +got):\n%s", diff)
	}
}

func TestNewTopologyReportsUndecodable(t *testing.T) {
	bad := decodeYAML(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bad, namespace: shop}
spec: {parentRefs: gw}
`)
	_, err := NewTopology([]*unstructured.Unstructured{bad}, DefaultSettings())
	if err == nil {
		t.Fatal("NewTopology accepted an HTTPRoute whose parentRefs is a string")
	}
}

// TestTopologyOfMatchesSelectors: with the namespaces' labels known (the webhook's cache), a listener
// whose allowedRoutes selects namespaces by label admits the routes of matching namespaces only;
// without them (offline), every selector is taken as matching.
func TestTopologyOfMatchesSelectors(t *testing.T) {
	from := gatewayv1.NamespacesFromSelector
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}, Spec: gatewayv1.GatewaySpec{
		Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, AllowedRoutes: &gatewayv1.AllowedRoutes{
			Namespaces: &gatewayv1.RouteNamespaces{From: &from, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "agents"}}}}}},
	}}
	group, kind := gatewayv1.Group(DefaultBackendGroup), gatewayv1.Kind(DefaultBackendKind)
	route := func(ns string) *gatewayv1.HTTPRoute {
		r := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "r"}}
		r.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "gw", Namespace: ptr.To(gatewayv1.Namespace("infra"))}}
		r.Spec.Rules = []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
			BackendObjectReference: gatewayv1.BackendObjectReference{Group: &group, Kind: &kind, Name: "tools"}}}}}}
		return r
	}
	routes := []*gatewayv1.HTTPRoute{route("agents"), route("web")}
	labels := map[string]map[string]string{"agents": {"team": "agents"}, "web": {"team": "web"}}
	cases := []struct {
		name     string
		nsLabels map[string]map[string]string
		want     []string
	}{
		{"labels known", labels, []string{"agents/tools"}},
		{"offline", nil, []string{"agents/tools", "web/tools"}},
	}
	for _, c := range cases {
		topo := TopologyOf([]*gatewayv1.Gateway{gw}, routes, c.nsLabels, DefaultSettings())
		if diff := cmp.Diff(c.want, topo.BackendsBehind("infra/gw")); diff != "" {
			t.Errorf("%s: backends behind infra/gw (-want +got):\n%s", c.name, diff)
		}
	}
}
