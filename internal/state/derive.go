package state

import (
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
)

// What a profile that folds outside the engine reads from the state to build its own derived
// cache (Derive): the graph, the objects of the kinds it watches, the labels of the topology, the
// Gateways and HTTPRoutes.

// Graph returns the topology graph of the events applied so far: the one the events brought
// forward, else built now (building held, like a snapshot's build).
func (s *State) Graph() *topology.Graph {
	s.mu.Lock()
	if s.graph != nil && s.graphGen == s.topoGen {
		g := s.graph
		s.mu.Unlock()
		return g
	}
	s.mu.Unlock()
	s.building.Lock()
	defer s.building.Unlock()
	s.mu.Lock()
	g, gen := s.graph, s.topoGen
	if g != nil && s.graphGen == gen {
		s.mu.Unlock()
		return g
	}
	refs := s.topoRefs()
	s.mu.Unlock()
	g = topology.BuildObjects(refs)
	s.mu.Lock()
	if s.graphGen <= gen {
		s.graph, s.graphGen = g, gen
	}
	s.mu.Unlock()
	return g
}

// Objects returns the stored objects of a watched kind gk (a managed kind's policies, or a kind a
// profile watches: WatchProfiles), in address order (values). They are shared: read only.
func (s *State) Objects(gk schema.GroupKind) []*unstructured.Unstructured {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policyObjects(gk)
}

// Watched reports whether the objects of gk are watched (or were given to Apply).
func (s *State) Watched(gk schema.GroupKind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.policies[gk]
	return ok
}

// WatchRead watches the objects of gk, a kind a profile reads (profile.Profile.Reads), from the
// profile's first use, in the version the cluster serves: a profile that is not used needs neither
// the watch nor the RBAC for it. ready reports whether the objects are listed, or that gk is not
// installed (there is nothing to read).
func (s *State) WatchRead(gk schema.GroupKind) (ready bool, err error) {
	s.mu.Lock()
	f, watched := s.kinds[gk]
	mapper := s.mapper
	s.mu.Unlock()
	if watched {
		return f(), nil
	}
	if mapper == nil {
		return false, errors.New("the state has no REST mapper yet: WatchProfiles first")
	}
	gvk, installed, err := s.installed(mapper, gk)
	if err != nil || !installed {
		return !installed && err == nil, err
	}
	if err := s.watchKinds([]policy.Kind{{GVK: gvk}}, false); err != nil {
		return false, err
	}
	return s.KindSynced(gk), nil
}

// Labeled is source.Labeled: a topology object with its labels, what label selectors select.
type Labeled = source.Labeled

// Labeled lists the Gateways and routes with their labels (in address order: values), and the
// labels of each namespace.
func (s *State) Labeled() ([]Labeled, map[string]map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Labeled, 0, len(s.gateways)+len(s.httpRoutes)+len(s.grpcRoutes))
	for _, o := range values(s.gateways) {
		out = append(out, Labeled{Kind: "Gateway", Namespace: o.Namespace, Name: o.Name, Labels: o.Labels})
	}
	for _, o := range values(s.httpRoutes) {
		out = append(out, Labeled{Kind: "HTTPRoute", Namespace: o.Namespace, Name: o.Name, Labels: o.Labels})
	}
	for _, o := range values(s.grpcRoutes) {
		out = append(out, Labeled{Kind: "GRPCRoute", Namespace: o.Namespace, Name: o.Name, Labels: o.Labels})
	}
	ns := make(map[string]map[string]string, len(s.nsLabels))
	for n, l := range s.nsLabels {
		ns[n] = l
	}
	return out, ns
}

// HTTPTopology lists the stored Gateways and HTTPRoutes, and the labels of each namespace: what a
// profile that follows HTTPRoute backendRefs reads (the access profile's Gateway → Backend topology).
// The objects are shared: read only.
func (s *State) HTTPTopology() ([]*gwv1.Gateway, []*gwv1.HTTPRoute, map[string]map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := make(map[string]map[string]string, len(s.nsLabels))
	for n, l := range s.nsLabels {
		ns[n] = l
	}
	return values(s.gateways), values(s.httpRoutes), ns
}

var _ source.Source = (*State)(nil)
