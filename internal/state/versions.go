package state

import (
	"context"
	"reflect"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/addrorder"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Once built, the graph and the snapshots follow each event: an event computes their next versions
// from the current ones (topology.Graph's updates, effective.Snapshot's Rebase and Update), in time
// proportional to what it touches, and publishes them with the event itself (handleWith). Requests
// read the versions current when they come, never waiting for the next ones to be computed.

// topoKind is one kind of topology object: how the state stores it and how it updates the graph.
type topoKind struct {
	gk     schema.GroupKind
	obj    client.Object
	store  store
	update func(g *topology.Graph, o client.Object, deleted bool) *topology.Graph
}

// optionalTopoKind is a topology kind watched only once its CRD is installed.
type optionalTopoKind struct {
	topoKind
}

// optionalKind is a namespaced optional topology kind stored in m: set updates the graph with an
// object, kind (the topology kind) deletes it.
func optionalKind[T client.Object](m map[types.NamespacedName]T, kind string, set func(*topology.Graph, T) *topology.Graph, del func(*topology.Graph, topology.Key) *topology.Graph) optionalTopoKind {
	var zero T
	obj := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(client.Object)
	return optionalTopoKind{topoKind: topoKind{
		gk:    schema.GroupKind{Group: topology.Group, Kind: kind},
		obj:   obj,
		store: objectStore(m),
		update: func(g *topology.Graph, o client.Object, deleted bool) *topology.Graph {
			t, ok := o.(T)
			if deleted || !ok {
				return del(g, topology.Key{Namespace: o.GetNamespace(), Name: o.GetName()})
			}
			return set(g, t)
		},
	}}
}

// gatewayKind is the group/kind of a Gateway API kind.
func gatewayKind(kind string) schema.GroupKind {
	return schema.GroupKind{Group: topology.Group, Kind: kind}
}

// deleteRoute is DeleteRoute for one kind.
func deleteRoute(kind string) func(*topology.Graph, topology.Key) *topology.Graph {
	return func(g *topology.Graph, k topology.Key) *topology.Graph { return g.DeleteRoute(kind, k) }
}

// topology lists the topology kinds the state watches.
func (s *State) topology() []topoKind {
	return []topoKind{
		{gatewayKind("GatewayClass"), &gwv1.GatewayClass{}, store{
			set:     func(o client.Object) { s.classes[o.GetName()] = o.(*gwv1.GatewayClass) },
			del:     func(k types.NamespacedName) { delete(s.classes, k.Name) },
			version: func(k types.NamespacedName) (string, bool) { return versionIn(s.classes, k.Name) }},
			func(g *topology.Graph, o client.Object, deleted bool) *topology.Graph {
				if deleted {
					return g.DeleteGatewayClass(o.GetName())
				}
				gc, ok := o.(*gwv1.GatewayClass)
				if !ok {
					return g
				}
				return g.SetGatewayClass(gc.Name, string(gc.Spec.ControllerName))
			}},
		{gatewayKind("Gateway"), &gwv1.Gateway{}, objectStore(s.gateways),
			func(g *topology.Graph, o client.Object, deleted bool) *topology.Graph {
				gw, ok := o.(*gwv1.Gateway)
				if deleted || !ok {
					return g.DeleteGateway(topology.Key{Namespace: o.GetNamespace(), Name: o.GetName()})
				}
				return g.SetGateway(gw)
			}},
		{gatewayKind("HTTPRoute"), &gwv1.HTTPRoute{}, objectStore(s.httpRoutes),
			func(g *topology.Graph, o client.Object, deleted bool) *topology.Graph {
				r, ok := o.(*gwv1.HTTPRoute)
				if deleted || !ok {
					return g.DeleteRoute("HTTPRoute", topology.Key{Namespace: o.GetNamespace(), Name: o.GetName()})
				}
				return g.SetHTTPRoute(r)
			}},
		{gatewayKind("GRPCRoute"), &gwv1.GRPCRoute{}, objectStore(s.grpcRoutes),
			func(g *topology.Graph, o client.Object, deleted bool) *topology.Graph {
				r, ok := o.(*gwv1.GRPCRoute)
				if deleted || !ok {
					return g.DeleteRoute("GRPCRoute", topology.Key{Namespace: o.GetNamespace(), Name: o.GetName()})
				}
				return g.SetGRPCRoute(r)
			}},
		{schema.GroupKind{Kind: "Namespace"}, namespaceMeta(), store{
			set: func(o client.Object) {
				s.nsLabels[o.GetName()] = o.GetLabels()
				s.nsVersions[o.GetName()] = o.GetResourceVersion()
			},
			del: func(k types.NamespacedName) { delete(s.nsLabels, k.Name); delete(s.nsVersions, k.Name) },
			version: func(k types.NamespacedName) (string, bool) {
				v, ok := s.nsVersions[k.Name]
				return v, ok
			}},
			func(g *topology.Graph, o client.Object, deleted bool) *topology.Graph {
				if deleted {
					return g.DeleteNamespace(o.GetName())
				}
				return g.SetNamespace(o.GetName(), o.GetLabels())
			}},
	}
}

// optionalTopology lists the topology kinds the state watches once their CRDs are installed.
func (s *State) optionalTopology() []optionalTopoKind {
	return []optionalTopoKind{
		optionalKind(s.lsets, "ListenerSet", (*topology.Graph).SetListenerSet, (*topology.Graph).DeleteListenerSet),
		optionalKind(s.tlsRoutes, "TLSRoute", (*topology.Graph).SetTLSRoute, deleteRoute("TLSRoute")),
		optionalKind(s.tcpRoutes, "TCPRoute", (*topology.Graph).SetTCPRoute, deleteRoute("TCPRoute")),
		optionalKind(s.udpRoutes, "UDPRoute", (*topology.Graph).SetUDPRoute, deleteRoute("UDPRoute")),
	}
}

// nextTopology computes the graph after a topology event (update) and the snapshots over it, with
// building held; it returns what publishes them (mu held, the event stored and bumped), or nil
// when nothing is built yet: then the next request builds, as at the start.
func (s *State) nextTopology(update func(*topology.Graph) *topology.Graph) func() {
	s.mu.Lock()
	g, gen := s.graph, s.topoGen
	fresh := g != nil && s.graphGen == gen
	snaps := make(map[schema.GroupKind]*built, len(s.snaps))
	for gk, b := range s.snaps {
		if b.graph == g {
			snaps[gk] = b
		}
	}
	s.mu.Unlock()
	if !fresh {
		return nil
	}
	g2 := update(g)
	if g2.Stale() {
		// Built anew from its own objects, once in thousands of changes; requests read g meanwhile.
		g2 = g2.Compact()
	}
	s.nextGraph = g2
	next := make(map[schema.GroupKind]*built, len(snaps))
	for gk, b := range snaps {
		next[gk] = &built{snap: b.snap.Rebase(g2), kind: b.kind, graph: g2, policyGen: b.policyGen, views: b.views}
	}
	return func() {
		if s.graph != g || s.topoGen != gen+1 {
			return // another change came between (none does: building is held)
		}
		s.graph, s.graphGen = g2, s.topoGen
		for gk, nb := range next {
			if s.snaps[gk] == snaps[gk] {
				s.snaps[gk] = nb
			}
		}
	}
}

// nextPolicy computes the snapshot of kind gk after an event on one of its policies, with building
// held; it returns what publishes it (mu held, the event stored and bumped), or nil when the
// snapshot is not built (or not current): then the next request builds it.
func (s *State) nextPolicy(gk schema.GroupKind, o client.Object, deleted bool) func() {
	s.mu.Lock()
	b := s.snaps[gk]
	pgen := s.policyGen[gk]
	fresh := b != nil && s.graph != nil && b.graph == s.graph && s.graphGen == s.topoGen && b.policyGen == pgen
	s.mu.Unlock()
	if !fresh {
		return nil
	}
	ref := policy.Ref{Namespace: o.GetNamespace(), Name: o.GetName()}
	var p *policy.Policy
	if u, ok := o.(*unstructured.Unstructured); ok && !deleted {
		p, _ = policy.View(b.kind, u)
	}
	// The folds in use on the paths the change reaches, to fold again once it is published
	// (refold.go).
	var refold []int
	if !s.foreground {
		var was, is []int
		if old, ok := b.snap.Policy(ref); ok {
			was = b.snap.PathsOf(old)
		}
		if p != nil {
			is = b.snap.PathsOf(p)
		}
		refold = toRefold(b.snap, was, is)
	}
	nb := &built{snap: b.snap.Update(ref, p), kind: b.kind, graph: b.graph, policyGen: pgen + 1}
	return func() {
		if s.snaps[gk] == b && s.policyGen[gk] == pgen+1 {
			s.snaps[gk] = nb
			s.queueRefold(gk, nb.graph, refold)
		}
	}
}

// watchTopology registers the handlers of one topology kind (watching held). An optional kind (opt
// not nil) whose CRD is not installed is skipped, logged once, and looked for again by WatchKinds.
func (s *State) watchTopology(ctx context.Context, c cache.Informers, t topoKind, opt *optionalTopoKind, initial bool) error {
	bump := func() { s.topoGen++; s.kickBuild() }
	synced, err := s.handleWith(ctx, c, t.obj, t.gk, true, t.store, bump, func(o client.Object, deleted bool) func() {
		return s.nextTopology(func(g *topology.Graph) *topology.Graph { return t.update(g, o, deleted) })
	})
	if err != nil {
		if opt != nil && meta.IsNoMatchError(err) {
			if _, said := s.topoMissing[opt.gk]; !said {
				s.log.Info("topology kind not installed: watched once its CRD is", "kind", opt.gk.Kind)
			}
			s.topoMissing[opt.gk] = *opt
			return nil
		}
		return err
	}
	if opt != nil {
		if _, was := s.topoMissing[opt.gk]; was {
			s.log.Info("topology kind installed: watching it", "kind", opt.gk.Kind)
			delete(s.topoMissing, opt.gk)
		}
	}
	if initial {
		s.mu.Lock()
		s.synced = append(s.synced, synced)
		s.allSynced.Store(false)
		s.mu.Unlock()
	}
	return nil
}

// values lists the objects of a map in address order (package addrorder): about the order the
// informer delivered them in, so that a build reads the heap forward.
func values[K comparable, T any](m map[K]*T) []*T { return addrorder.Values(m) }

// TopologyKinds are the kinds the state watches for the topology whatever the profiles and the
// settings say: the Gateway API kinds (the optional ones once their CRDs are installed) and the
// Namespaces (their labels). The generated RBAC (package install) lets Precedent read them.
func TopologyKinds() []schema.GroupKind { return slices.Clone(topologyKinds()) }

// topologyKinds is TopologyKinds, made once: every trial asks (Revertible, Revert), and making it
// builds the lists of every kind, 11 kB each time (a tenth of what the offline review of the
// generated world allocated).
var topologyKinds = sync.OnceValue(func() []schema.GroupKind {
	s := &State{} // the lists' closures are never called here
	var out []schema.GroupKind
	for _, t := range s.topology() {
		gk := t.obj.GetObjectKind().GroupVersionKind().GroupKind()
		if gk.Kind == "" { // a typed Gateway API object
			gk = schema.GroupKind{Group: topology.Group, Kind: reflect.TypeOf(t.obj).Elem().Name()}
		}
		out = append(out, gk)
	}
	for _, t := range s.optionalTopology() {
		out = append(out, t.gk)
	}
	return out
})
