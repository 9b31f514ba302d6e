package state

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Apply stores objects as the informers' add and update events would (Gateways, HTTPRoutes, and
// policies or any other watched kind, unstructured), bumping the generations they belong to and
// bringing the built graph, snapshots and derived values forward as an event does, and marks the
// state synced, the kinds applied included. It is for benchmarks and tests that fill a State without
// informers; a State fed by Watch gets its objects from the informers.
func (s *State) Apply(objs ...client.Object) {
	for _, o := range objs {
		switch t := o.(type) {
		case *gwv1.Gateway:
			s.apply(Event{GroupKind: gatewayKind("Gateway"), Object: t, Old: stored(s, s.gateways, key(o)), Topology: true},
				func() { s.gateways[key(o)] = t; s.topoGen++ }, func() func() {
					return s.nextTopology(func(g *topology.Graph) *topology.Graph { return g.SetGateway(t) })
				})
		case *gwv1.HTTPRoute:
			s.apply(Event{GroupKind: gatewayKind("HTTPRoute"), Object: t, Old: stored(s, s.httpRoutes, key(o)), Topology: true},
				func() { s.httpRoutes[key(o)] = t; s.topoGen++ }, func() func() {
					return s.nextTopology(func(g *topology.Graph) *topology.Graph { return g.SetHTTPRoute(t) })
				})
		case *unstructured.Unstructured:
			gk := t.GroupVersionKind().GroupKind()
			s.mu.Lock()
			if _, ok := s.kinds[gk]; !ok {
				s.kinds[gk] = func() bool { return true } // listed: what Apply gives is all there is
			}
			var old client.Object
			if u, ok := s.policies[gk][key(o)]; ok {
				old = u
			}
			s.mu.Unlock()
			s.apply(Event{GroupKind: gk, Object: t, Old: old}, func() {
				if s.policies[gk] == nil {
					s.policies[gk] = map[types.NamespacedName]*unstructured.Unstructured{}
				}
				s.policies[gk][key(o)] = t
				s.policyGen[gk]++
			}, func() func() { return s.nextPolicy(gk, t, false) })
		}
	}
	s.mu.Lock()
	s.synced = append(s.synced, func() bool { return true })
	s.allSynced.Store(false)
	s.mu.Unlock()
}

// apply is one event e of Apply: next and the derivations that read e compute what follows it
// (building held), store records it and the publications follow (mu held).
func (s *State) apply(e Event, store func(), next func() func()) {
	s.building.Lock()
	defer s.building.Unlock()
	publish := next()
	publishDerived := s.nextDerived(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	store()
	if publish != nil {
		publish()
	}
	if publishDerived != nil {
		publishDerived()
	}
}

// stored is the object of m under k before an event of Apply, nil for none (mu taken).
func stored[T client.Object](s *State, m map[types.NamespacedName]T, k types.NamespacedName) client.Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := m[k]; ok {
		return o
	}
	return nil
}
