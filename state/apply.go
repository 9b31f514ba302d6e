package state

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/mesh"
	"github.com/precedent-dev/precedent/topology"
)

// Apply stores objects as the informers' add and update events would (Gateways, HTTPRoutes,
// policies and Dataplanes, unstructured), bumping the generations they belong to and bringing the
// built graph and snapshots forward as an event does, and marks the state synced. It is for
// benchmarks and tests that fill a State without informers; a State fed by Watch gets its objects
// from the informers.
func (s *State) Apply(objs ...client.Object) {
	for _, o := range objs {
		switch t := o.(type) {
		case *gwv1.Gateway:
			s.apply(func() { s.gateways[key(o)] = t; s.topoGen++ }, func() func() {
				return s.nextTopology(func(g *topology.Graph) *topology.Graph { return g.SetGateway(t) })
			})
		case *gwv1.HTTPRoute:
			s.apply(func() { s.httpRoutes[key(o)] = t; s.topoGen++ }, func() func() {
				return s.nextTopology(func(g *topology.Graph) *topology.Graph { return g.SetHTTPRoute(t) })
			})
		case *unstructured.Unstructured:
			gk := t.GroupVersionKind().GroupKind()
			if gk == DataplaneKind {
				s.mu.Lock()
				if dp, err := mesh.ParseDataplane(t); err == nil {
					s.dataplanes[key(o)] = storedDataplane{mesh: dataplaneMesh(t), dp: dp}
					s.dpGen++
				}
				s.mu.Unlock()
				continue
			}
			s.apply(func() {
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

// apply is one event of Apply: next computes what follows it (building held), store records it and
// the publication follows (mu held).
func (s *State) apply(store func(), next func() func()) {
	s.building.Lock()
	defer s.building.Unlock()
	publish := next()
	s.mu.Lock()
	defer s.mu.Unlock()
	store()
	if publish != nil {
		publish()
	}
}
