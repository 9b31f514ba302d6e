package topology_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// listenerSetTargets are the ListenerSet and L4 route targets a churn with ListenerSets may make.
func listenerSetTargets() []topology.Target {
	var out []topology.Target
	for _, ns := range []string{"infra", "shop", "pay"} {
		for _, n := range []string{"ls-a", "ls-b"} {
			for _, s := range []string{"", "http", "https", "admin", "l4"} {
				out = append(out, topology.Target{Kind: "ListenerSet", Namespace: ns, Name: n, Section: s})
			}
		}
		for _, kind := range []string{"TLSRoute", "TCPRoute", "UDPRoute"} {
			for _, n := range []string{"r1", "t1"} {
				for _, s := range []string{"", "main", "admin", "api", "rule-0", "rule-1"} {
					out = append(out, topology.Target{Kind: kind, Namespace: ns, Name: n, Section: s})
				}
			}
		}
	}
	return out
}

// withListenerSets is an empty cluster of every kind the graph reads, ListenerSets and L4 routes
// included.
func withListenerSets() *objects {
	return &objects{gateways: map[topology.Key]*gwv1.Gateway{}, http: map[topology.Key]*gwv1.HTTPRoute{}, grpc: map[topology.Key]*gwv1.GRPCRoute{}, ns: map[string]map[string]string{},
		lsets: map[topology.Key]*gwv1.ListenerSet{}, tls: map[topology.Key]*gwv1.TLSRoute{}, tcp: map[topology.Key]*gwv1.TCPRoute{}, udp: map[topology.Key]*gwv1.UDPRoute{}}
}

// TestUpdateMatchesBuildListenerSets is TestUpdateMatchesBuild with ListenerSets, TLS/TCP/UDP
// routes, Gateways that allow ListenerSets or not, and parentRefs to ListenerSets in the churn.
func TestUpdateMatchesBuildListenerSets(t *testing.T) {
	const seeds, steps = 20, 150
	extra := listenerSetTargets()
	lsPaths := 0 // paths through a ListenerSet met, over every seed
	for seed := int64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := gen.NewChurn(seed, policy.Builtin()[1])
			c.ListenerSets = true
			o := withListenerSets()
			g := topology.Build(o.input())
			for step := 0; step < steps; step++ {
				ch := c.Next()
				g = o.apply(g, ch)
				want := viewWith(topology.Build(o.input()), extra)
				if diff := cmp.Diff(want, viewWith(g, extra)); diff != "" {
					t.Fatalf("step %d (%T %s/%s delete=%v): updated graph differs from a build (-build +updated):\n%s",
						step, ch.Object, ch.Object.GetNamespace(), ch.Object.GetName(), ch.Delete, diff)
				}
				if diff := cmp.Diff(want, viewWith(g.Compact(), extra)); diff != "" {
					t.Fatalf("step %d: compacted graph differs from a build (-build +compacted):\n%s", step, diff)
				}
				for _, p := range want.Paths {
					if p.ListenerSet.Name != "" {
						lsPaths++
					}
				}
			}
		})
	}
	if lsPaths == 0 {
		t.Error("the churns made no path through a ListenerSet")
	}
}
