package engine

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/topology"
)

// TestSharingListeners: the route index, which looks listeners up by their target numbers, holds
// the overlap keys each route has when its listeners are looked up by name, on Gateway listeners
// and on a ListenerSet's, in both version lines.
func TestSharingListeners(t *testing.T) {
	w := world(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: nginx
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, port: 80, protocol: HTTP, hostname: "*.example.com"}
  - {name: alt, port: 8080, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: extra, namespace: shop}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: more, port: 9090, protocol: HTTP, hostname: more.example.com}
  - {name: other, port: 9091, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}, {kind: ListenerSet, name: extra}]
  hostnames: [shop.example.com, more.example.com]
  rules: [{matches: [{path: {value: /cart}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: tea, namespace: shop}
spec:
  parentRefs: [{name: gw, sectionName: alt}, {kind: ListenerSet, name: extra}]
  rules: [{matches: [{path: {value: /tea}}, {path: {value: /cart}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: rpc, namespace: shop}
spec:
  parentRefs: [{name: gw, sectionName: http}]
  hostnames: [rpc.example.com]
`).Index()
	for _, version := range []string{Version26, VersionMain} {
		want := map[string][]topology.Key{}
		for kind, routes := range map[string][]topology.Key{"HTTPRoute": slices.Collect(maps.Keys(w.HTTPRoutes)), "GRPCRoute": slices.Collect(maps.Keys(w.GRPCRoutes))} {
			for _, k := range routes {
				for _, hp := range w.hostPortPaths(kind, k, version, nil) {
					want[hp] = append(want[hp], k)
				}
			}
		}
		for _, ks := range want {
			sort.Slice(ks, func(i, j int) bool { return ks[i].String() < ks[j].String() })
		}
		onSet := map[string]bool{} // the ListenerSet's listeners met
		for hp := range want {
			for _, port := range []string{":9090/", ":9091/"} {
				onSet[port] = onSet[port] || strings.Contains(hp, port)
			}
		}
		if !onSet[":9090/"] || !onSet[":9091/"] {
			t.Fatalf("%s: not every ListenerSet listener has an overlap key in %v", version, want)
		}
		if diff := cmp.Diff(want, w.sharingOf(version)); diff != "" {
			t.Errorf("%s: the route index (-by name +by number):\n%s", version, diff)
		}
	}
}
