package state

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/mesh"
)

// Apply stores objects as the informers' add and update events would (Gateways, HTTPRoutes,
// policies and Dataplanes, unstructured), bumping the generations they belong to, and marks the
// state synced. It is for benchmarks and tests that fill a State without informers; a State fed by
// Watch gets its objects from the informers.
func (s *State) Apply(objs ...client.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range objs {
		switch t := o.(type) {
		case *gwv1.Gateway:
			s.gateways[key(o)] = t
			s.topoGen++
		case *gwv1.HTTPRoute:
			s.httpRoutes[key(o)] = t
			s.topoGen++
		case *unstructured.Unstructured:
			gk := t.GroupVersionKind().GroupKind()
			if gk == DataplaneKind {
				if dp, err := mesh.ParseDataplane(t); err == nil {
					s.dataplanes[key(o)] = storedDataplane{mesh: dataplaneMesh(t), dp: dp}
					s.dpGen++
				}
				continue
			}
			if s.policies[gk] == nil {
				s.policies[gk] = map[types.NamespacedName]*unstructured.Unstructured{}
			}
			s.policies[gk][key(o)] = t
			s.policyGen[gk]++
		}
	}
	s.synced = append(s.synced, func() bool { return true })
	s.allSynced.Store(false)
}
