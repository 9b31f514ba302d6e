package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/precedent-dev/precedent/internal/topology"
)

// A Snapshot follows the events of a Namespace and of a ReferenceGrant with steps too. A namespace's
// labels decide which of its routes and ListenerSets attach (allowedRoutes and allowedListeners
// selectors: the graph after the event has them attached again) and which objects a targetSelector's
// namespaceSelector reaches; a ReferenceGrant decides which of the objects a targetSelector matches
// in its namespace a policy of another namespace may reach. Neither changes what a targetRef names.

// WithNamespace returns the snapshot over g, the graph after an event on namespace ns whose labels
// are now labels (deleted: none), as NewSnapshot builds it over g from the same objects: the paths of
// the routes of ns and the Gateways its ListenerSets attach to (before or after) are done again, then
// the policies that name those ListenerSets and Gateways (whose scopes the attachment decides) and
// those with targetSelectors resolved again. It returns nil when it
// cannot step (a snapshot built without a graph, or one with more dead paths than live).
func (s *Snapshot) WithNamespace(g *topology.Graph, ns string, labels map[string]string, deleted bool) *Snapshot {
	if s.graph == nil || g == nil {
		return nil
	}
	was, had := s.nsLabels.lookup(ns)
	if s.graph == g && had != deleted && maps.Equal(was, labels) {
		return s // a Namespace update that left its labels alone (they alone are read)
	}
	n := s.next()
	old := s.graph
	n.graph = g
	if deleted {
		n.nsLabels = n.nsLabels.del(ns)
	} else {
		n.nsLabels = n.nsLabels.set(ns, labels)
	}
	var touched []Scope
	routes := map[topology.Target]bool{}
	for _, gr := range []*topology.Graph{old, g} {
		for _, t := range gr.NamespaceRoutes(ns) {
			routes[t] = true
		}
	}
	for _, t := range slices.SortedFunc(maps.Keys(routes), func(a, b topology.Target) int { return strings.Compare(a.String(), b.String()) }) {
		if !routeKinds[t.Kind] {
			continue
		}
		n.redoRoute(old, t) // its paths; not its scopes, which a route has attached or not
	}
	gateways := map[topology.Key]bool{}
	for _, gr := range []*topology.Graph{old, g} {
		for _, lk := range gr.NamespaceListenerSets(ns) {
			touched = append(touched, Scope{Kind: "ListenerSet", Namespace: lk.Namespace, Name: lk.Name})
			for _, at := range []*topology.Graph{old, g} {
				if _, gk, ok := at.AttachedListenerSet(lk); ok {
					gateways[gk] = true
				}
			}
		}
	}
	for _, gk := range slices.SortedFunc(maps.Keys(gateways), topology.Key.Compare) {
		touched = append(touched, n.redoGateway(old, gk)...)
	}
	n.resolveAgain(touched)
	if n.paths.ndead > n.paths.len()-n.paths.ndead+1000 || n.listeners.ndead > n.listeners.len()-n.listeners.ndead+1000 {
		return nil
	}
	return n
}

// WithReferenceGrant returns the snapshot after the ReferenceGrant g.Namespace/g.Name became g
// (deleted: none), as NewSnapshot builds it: the policies with targetSelectors resolved again (a
// targetRef names an object of the policy's own namespace, which needs no grant).
func (s *Snapshot) WithReferenceGrant(g ReferenceGrant, deleted bool) *Snapshot {
	n := s.next()
	list := slices.DeleteFunc(slices.Clone(s.grants.get(g.Namespace)), func(h ReferenceGrant) bool { return h.Name == g.Name })
	if !deleted {
		list = append(list, g)
		slices.SortFunc(list, func(a, b ReferenceGrant) int { return strings.Compare(a.Name, b.Name) })
	}
	if len(list) == 0 {
		n.grants = n.grants.del(g.Namespace)
	} else {
		n.grants = n.grants.set(g.Namespace, list)
	}
	n.resolveAgain(nil)
	return n
}
