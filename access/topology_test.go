package access

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
