package engine

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// flatWorld is routes HTTPRoutes over routes/10 Gateways (every other one preferring the parent),
// each route with its own TrafficPolicy and each Gateway with one.
func flatWorld(routes int) []*unstructured.Unstructured {
	var objs []*unstructured.Unstructured
	for g := 0; g < routes/10; g++ {
		mode := ShallowPreferChild
		if g%2 == 1 {
			mode = ShallowPreferParent
		}
		ns := fmt.Sprintf("ns%d", g)
		objs = append(objs, gateway(ns, "gw", mode),
			tp(ns, "gw-tp", 0, list{ref("Gateway", "gw", "")}, obj{"cors": obj{}, "extAuth": obj{}}))
		for r := 0; r < 10; r++ {
			name := fmt.Sprintf("r%d", r)
			objs = append(objs, route(ns, name, "gw", "", nil, backend()),
				tp(ns, name+"-tp", 1, list{ref("HTTPRoute", name, "")}, obj{"rateLimit": obj{}, "timeouts": obj{}}))
		}
	}
	return objs
}

// treeWorld is one Gateway, a root route preferring itself that delegates by label to 10 middle
// routes, each delegating by name to 100 leaf routes (1,000 in all), with policies on every level.
func treeWorld() []*unstructured.Unstructured {
	objs := []*unstructured.Unstructured{
		gateway("infra", "gw", ""),
		route("infra", "root", "gw", ShallowPreferParent, nil, delegateLabel(WildcardNamespace, "mid")),
		tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"rateLimit": obj{}}),
	}
	for m := 0; m < 10; m++ {
		ns := fmt.Sprintf("team%d", m)
		var rules []obj
		for l := 0; l < 100; l++ {
			name := fmt.Sprintf("leaf%d", l)
			rules = append(rules, delegate(ns, name))
			objs = append(objs, route(ns, name, "", "", nil, backend()),
				tp(ns, name+"-tp", 2, list{ref("HTTPRoute", name, "")}, obj{"timeouts": obj{}}))
		}
		objs = append(objs, route(ns, "mid", "", "", map[string]string{DelegationLabel: "mid"}, rules...),
			tp(ns, "mid-tp", 1, list{ref("HTTPRoute", "mid", "")}, obj{"cors": obj{}}))
	}
	return objs
}

// BenchmarkWrite projects a route TrafficPolicy write (warnings included) on flat worlds of 1,000
// and 10,000 routes and on a 3-level delegation tree with 1,000 leaf routes: the cost should not
// grow with the world (one route's paths are folded).
func BenchmarkWrite(b *testing.B) {
	write := func(ns, name, target string) *Policy {
		p, errs := Read(tp(ns, name, 5, list{ref("HTTPRoute", target, "")}, obj{"rateLimit": obj{}, "cors": obj{}}))
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		return p
	}
	cases := []struct {
		name  string
		objs  []*unstructured.Unstructured
		write *Policy
	}{
		{"routes=1000", flatWorld(1000), write("ns1", "r3-tp", "r3")},
		{"routes=10000", flatWorld(10000), write("ns1", "r3-tp", "r3")},
		{"delegation-tree/leaves=1000", treeWorld(), write("team3", "leaf42-tp", "leaf42")},
	}
	for _, c := range cases {
		w := New(c.objs)
		if len(w.WriteWarnings(c.write)) == 0 {
			b.Fatalf("%s: the write displaces nothing: the benchmark would not measure the warnings", c.name)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = w.WriteWarnings(c.write)
			}
		})
	}
}

// BenchmarkWithPolicy steps flat worlds of 10,000 and 100,000 routes (11,000 and 110,000
// TrafficPolicies) with one route policy's write, as a policy's event or a swapped pair's trial
// does: it copies the map of policies and the lists of the object it attaches to, so it grows with
// the policies (a build reads every one of them: WithPolicies).
func BenchmarkWithPolicy(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		w := New(flatWorld(n))
		p, errs := Read(tp("ns1", "r3-tp", 5, list{ref("HTTPRoute", "r3", "")}, obj{"rateLimit": obj{}}))
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = w.WithPolicy(Key{"ns1", "r3-tp"}, p)
			}
		})
	}
}
