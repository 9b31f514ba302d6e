package engine

import (
	"fmt"
	"strings"
	"testing"
)

// benchWorld is a Gateway with n HTTPRoutes of distinct paths and a ClientSettingsPolicy on every
// tenth route, plus one on the Gateway.
func benchWorld(b *testing.B, n int) *World {
	var sb strings.Builder
	sb.WriteString(topo)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r%d, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /r%d}}]}]`, i, i)
		if i%10 == 0 {
			fmt.Fprintf(&sb, `
---
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: csp%d, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r%d}
  body: {maxSize: 1m}`, i, i)
		}
	}
	sb.WriteString("\n---\n" + gwCSP)
	t := &testing.T{}
	w := world(t, sb.String())
	if t.Failed() {
		b.Fatal("building the world")
	}
	return w.Index()
}

// BenchmarkWrite is one write of a route-level ClientSettingsPolicy, projected on a world of 1,000
// and of 10,000 routes: its cost should stay within 2x from one to the other only when it does not
// walk every route (the overlap check reads the route index).
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		w := benchWorld(b, n)
		p := routeCSP("new", "r5")
		w.Project(Write{New: p}) // the index, once
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w.Project(Write{New: p})
			}
		})
	}
}

// BenchmarkWithPolicy steps worlds of 1,000 and 10,000 routes (101 and 1,001 policies) with one
// route policy's write, as a policy's event or a swapped pair's trial does: it copies the policies
// and their indexes, so it grows with the policies (a build reads every one of them and indexes the
// routes again).
func BenchmarkWithPolicy(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		w := benchWorld(b, n)
		p := routeCSP("csp10", "r10") // one the world holds: a write replaces it
		w.targets()                   // the index, once
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = w.WithPolicy(p.Kind, p.Ref, p)
			}
		})
	}
}

// routeCSP is a ClientSettingsPolicy of namespace shop named name on the route, setting keep-alive
// requests.
func routeCSP(name, route string) *Policy {
	return policy(&testing.T{}, sprintf(`
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: %s, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: %s}
  keepAlive: {requests: 10}`, name, route))
}
