package topology_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// objects is the cluster a churn has made so far, the input of a full build.
type objects struct {
	gateways map[topology.Key]*gwv1.Gateway
	http     map[topology.Key]*gwv1.HTTPRoute
	grpc     map[topology.Key]*gwv1.GRPCRoute
	ns       map[string]map[string]string
	// The kinds of a churn with ListenerSets (nil maps otherwise).
	lsets map[topology.Key]*gwv1.ListenerSet
	tls   map[topology.Key]*gwv1.TLSRoute
	tcp   map[topology.Key]*gwv1.TCPRoute
	udp   map[topology.Key]*gwv1.UDPRoute
}

func (o *objects) input() topology.Input {
	in := topology.Input{NamespaceLabels: o.ns}
	for _, g := range o.gateways {
		in.Gateways = append(in.Gateways, *g)
	}
	for _, r := range o.http {
		in.HTTPRoutes = append(in.HTTPRoutes, *r)
	}
	for _, r := range o.grpc {
		in.GRPCRoutes = append(in.GRPCRoutes, *r)
	}
	for _, x := range o.lsets {
		in.ListenerSets = append(in.ListenerSets, *x)
	}
	for _, r := range o.tls {
		in.TLSRoutes = append(in.TLSRoutes, *r)
	}
	for _, r := range o.tcp {
		in.TCPRoutes = append(in.TCPRoutes, *r)
	}
	for _, r := range o.udp {
		in.UDPRoutes = append(in.UDPRoutes, *r)
	}
	return in
}

// apply records change c in o and returns g updated with it.
func (o *objects) apply(g *topology.Graph, c gen.Change) *topology.Graph {
	k := topology.Key{Namespace: c.Object.GetNamespace(), Name: c.Object.GetName()}
	switch x := c.Object.(type) {
	case *gwv1.Gateway:
		if c.Delete {
			delete(o.gateways, k)
			return g.DeleteGateway(k)
		}
		o.gateways[k] = x
		return g.SetGateway(x)
	case *gwv1.HTTPRoute:
		if c.Delete {
			delete(o.http, k)
			return g.DeleteRoute("HTTPRoute", k)
		}
		o.http[k] = x
		return g.SetHTTPRoute(x)
	case *gwv1.GRPCRoute:
		if c.Delete {
			delete(o.grpc, k)
			return g.DeleteRoute("GRPCRoute", k)
		}
		o.grpc[k] = x
		return g.SetGRPCRoute(x)
	case *gwv1.ListenerSet:
		if c.Delete {
			delete(o.lsets, k)
			return g.DeleteListenerSet(k)
		}
		o.lsets[k] = x
		return g.SetListenerSet(x)
	case *gwv1.TLSRoute:
		if c.Delete {
			delete(o.tls, k)
			return g.DeleteRoute("TLSRoute", k)
		}
		o.tls[k] = x
		return g.SetTLSRoute(x)
	case *gwv1.TCPRoute:
		if c.Delete {
			delete(o.tcp, k)
			return g.DeleteRoute("TCPRoute", k)
		}
		o.tcp[k] = x
		return g.SetTCPRoute(x)
	case *gwv1.UDPRoute:
		if c.Delete {
			delete(o.udp, k)
			return g.DeleteRoute("UDPRoute", k)
		}
		o.udp[k] = x
		return g.SetUDPRoute(x)
	case *metav1.PartialObjectMetadata:
		if c.Delete {
			delete(o.ns, k.Name)
			return g.DeleteNamespace(k.Name)
		}
		o.ns[k.Name] = x.Labels
		return g.SetNamespace(k.Name, x.Labels)
	}
	return g
}

// view is what a graph answers, by path value rather than by number (numbers differ between an
// updated graph and a built one).
type view struct {
	Paths      []topology.Path
	For        map[string][]topology.Path
	Exists     map[string]bool
	Unattached []topology.Target
	Places     map[topology.Path]topology.Path
	// Routes are the graph's routes, and NamespaceRoutes those of each namespace of the churns.
	Routes          []topology.Target
	NamespaceRoutes map[string][]topology.Target
}

func viewOf(g *topology.Graph) view { return viewWith(g, nil) }

// viewWith is viewOf asking also about the extra targets.
func viewWith(g *topology.Graph, extra []topology.Target) view {
	v := view{For: map[string][]topology.Path{}, Exists: map[string]bool{}, Places: map[topology.Path]topology.Path{}, Unattached: g.Unattached,
		Routes: g.RouteTargets(), NamespaceRoutes: map[string][]topology.Target{}}
	for _, ns := range []string{"infra", "shop", "pay"} {
		if rs := g.NamespaceRoutes(ns); len(rs) > 0 {
			v.NamespaceRoutes[ns] = rs
		}
	}
	idx := g.PathIndexes()
	for _, i := range idx {
		v.Paths = append(v.Paths, g.Paths[i])
	}
	// The place of a path, by the first path of the same place.
	first := map[int32]topology.Path{}
	for _, i := range idx {
		if _, ok := first[g.PlaceID(i)]; !ok {
			first[g.PlaceID(i)] = g.Paths[i]
		}
		v.Places[g.Paths[i]] = first[g.PlaceID(i)]
	}
	var targets []topology.Target
	for _, c := range []string{"one", "two", ""} {
		targets = append(targets, topology.Target{Kind: "GatewayClass", Name: c})
	}
	for _, ns := range []string{"infra", "shop", "pay"} {
		for _, n := range []string{"gw-a", "gw-b", "gw-c"} {
			for _, s := range []string{"", "http", "https", "admin"} {
				targets = append(targets, topology.Target{Kind: "Gateway", Namespace: ns, Name: n, Section: s})
			}
		}
		for _, kind := range []string{"HTTPRoute", "GRPCRoute"} {
			for _, n := range []string{"r1", "r2", "r3", "r4", "g1"} {
				for _, s := range []string{"", "main", "admin", "api", "rule-0", "rule-1", "rule-2"} {
					targets = append(targets, topology.Target{Kind: kind, Namespace: ns, Name: n, Section: s})
				}
			}
		}
	}
	for _, t := range append(targets, extra...) {
		var ps []topology.Path
		for _, i := range g.PathsFor(t) {
			ps = append(ps, g.Paths[i])
		}
		if ps != nil {
			v.For[t.String()] = ps
		}
		if g.Exists(t) {
			v.Exists[t.String()] = true
		}
		if g.IsUnattached(t) {
			v.Exists["unattached "+t.String()] = true
		}
	}
	return v
}

// TestUpdateMatchesBuild applies random changes to a graph one by one and compares, after every
// change, what the updated graph (and the same compacted) answers with what a full build of the
// same objects answers: 30 seeds of 120 changes.
func TestUpdateMatchesBuild(t *testing.T) {
	const seeds, steps = 30, 120
	for seed := int64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := gen.NewChurn(seed, policy.Builtin()[1])
			o := &objects{gateways: map[topology.Key]*gwv1.Gateway{}, http: map[topology.Key]*gwv1.HTTPRoute{}, grpc: map[topology.Key]*gwv1.GRPCRoute{}, ns: map[string]map[string]string{}}
			g := topology.Build(o.input())
			for step := 0; step < steps; step++ {
				ch := c.Next()
				g = o.apply(g, ch)
				want := viewOf(topology.Build(o.input()))
				if diff := cmp.Diff(want, viewOf(g)); diff != "" {
					t.Fatalf("step %d (%T %s/%s delete=%v): updated graph differs from a build (-build +updated):\n%s",
						step, ch.Object, ch.Object.GetNamespace(), ch.Object.GetName(), ch.Delete, diff)
				}
				if diff := cmp.Diff(want, viewOf(g.Compact())); diff != "" {
					t.Fatalf("step %d: compacted graph differs from a build (-build +compacted):\n%s", step, diff)
				}
			}
		})
	}
}

// TestUpdateMatchesBuildLarge: on a graph whose lists of paths span many chunks (a GatewayClass
// with more than a thousand paths), routes moved between Gateways and listeners, deleted and created
// again, give what a build gives.
func TestUpdateMatchesBuildLarge(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 20, Routes: 700})
	routes := map[topology.Key]*gwv1.HTTPRoute{}
	for i := range w.Input.HTTPRoutes {
		r := &w.Input.HTTPRoutes[i]
		routes[topology.Key{Namespace: r.Namespace, Name: r.Name}] = r
	}
	g := topology.Build(w.Input)
	paths := func(g *topology.Graph, t topology.Target) []topology.Path {
		var out []topology.Path
		for _, i := range g.PathsFor(t) {
			out = append(out, g.Paths[i])
		}
		return out
	}
	for step := 0; step < 300; step++ {
		r := w.Input.HTTPRoutes[(step*7919)%len(w.Input.HTTPRoutes)]
		k := topology.Key{Namespace: r.Namespace, Name: r.Name}
		if step%5 == 4 {
			if _, ok := routes[k]; ok {
				delete(routes, k)
				g = g.DeleteRoute("HTTPRoute", k)
				continue
			}
		}
		next := r.DeepCopy()
		next.Spec.ParentRefs[0].Name = gwv1.ObjectName(fmt.Sprintf("gw-%d", (step*31)%20))
		if step%2 == 0 {
			next.Spec.ParentRefs[0].SectionName = nil
		}
		routes[k] = next
		g = g.SetHTTPRoute(next)
		in := topology.Input{Gateways: w.Input.Gateways}
		for _, r := range routes {
			in.HTTPRoutes = append(in.HTTPRoutes, *r)
		}
		b := topology.Build(in)
		targets := []topology.Target{{Kind: "GatewayClass", Name: "example"}, {Kind: "Gateway", Namespace: "infra", Name: "gw-3"}, {Kind: "Gateway", Namespace: "infra", Name: "gw-3", Section: "https"}}
		for _, tt := range targets {
			if diff := cmp.Diff(paths(b, tt), paths(g, tt)); diff != "" {
				t.Fatalf("step %d: paths of %s differ (-build +updated):\n%s", step, tt, diff)
			}
		}
		if diff := cmp.Diff(viewOf(b).Paths, viewOf(g).Paths); diff != "" {
			t.Fatalf("step %d: paths differ (-build +updated):\n%s", step, diff)
		}
	}
}

// TestUpdateOfOlderVersion: updating a version that was updated already (a fork) leaves the newer
// version as it was, and gives what a build gives.
func TestUpdateOfOlderVersion(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 3, Routes: 30})
	g0 := topology.Build(w.Input)
	move := func(i int, gw string) *gwv1.HTTPRoute {
		r := w.Input.HTTPRoutes[i].DeepCopy()
		r.Spec.ParentRefs[0].Name = gwv1.ObjectName(gw)
		return r
	}
	a := g0.SetHTTPRoute(move(1, "gw-2"))
	wantA := viewOf(a)
	b := g0.SetHTTPRoute(move(2, "gw-0")) // a fork of g0: must not write over a's paths
	if diff := cmp.Diff(wantA, viewOf(a)); diff != "" {
		t.Fatalf("updating g0 again changed its first update (-before +after):\n%s", diff)
	}
	in := topology.Input{Gateways: w.Input.Gateways, HTTPRoutes: append([]gwv1.HTTPRoute(nil), w.Input.HTTPRoutes...)}
	in.HTTPRoutes[2] = *move(2, "gw-0")
	if diff := cmp.Diff(viewOf(topology.Build(in)).Paths, viewOf(b).Paths); diff != "" {
		t.Fatalf("the fork differs from a build (-build +fork):\n%s", diff)
	}
	if b.Extends(a) || a.Extends(b) {
		t.Error("two forks of one version say one extends the other")
	}
	if !a.Extends(g0) {
		t.Error("an update does not extend the version it was made from")
	}
}
