package envoygateway

import (
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// scopeGraph is Envoy Gateway's record of which policy scopes lie beneath which, for its
// Overridden condition (helpers.go policyScopeGraph): each policy of a kind adds an edge from the
// scope it sits beneath to its own (a listener's policy beneath its Gateway or ListenerSet, a
// ListenerSet-wide one beneath its Gateway, a route's or rule's beneath each parentRef, as the
// route scope), whether or not a policy holds that parent scope. A Gateway, ListenerSet or listener
// policy is Overridden when a scope beneath it has a policy, except the routes merged into it.
// It is drawn per scope, not per path: a route one of whose rules replaces the Gateway policy and
// another merges into it does not override it (the translator's case
// backendtrafficpolicy-with-routing-type-mergetype-unset).
type scopeGraph struct {
	children map[engine.Scope]map[engine.Scope]bool
	// contains indexes the listener scopes under their Gateway or ListenerSet, and ListenerSets
	// under their Gateway, for the walk down (helpers.go indexContainment).
	contains map[engine.Scope]map[engine.Scope]bool
}

func insert(m map[engine.Scope]map[engine.Scope]bool, k, v engine.Scope) {
	if m[k] == nil {
		m[k] = map[engine.Scope]bool{}
	}
	m[k][v] = true
}

// add is helpers.go policyScopeGraph.Add: an edge, and a listener parent indexed under its
// Gateway or ListenerSet.
func (g *scopeGraph) add(parent, child engine.Scope) {
	insert(g.children, parent, child)
	if parent.Section != "" {
		insert(g.contains, whole(parent), parent)
	}
}

func whole(sc engine.Scope) engine.Scope {
	sc.Section = ""
	return sc
}

// newScopeGraph draws the graph of the scopes held (engine.Snapshot.Held, with the projected
// policy's), given the routes' parentRefs and the graph's ListenerSets (backendtrafficpolicy.go,
// securitypolicy.go and envoyextensionpolicy.go process*ForRoute and process*ForListenerSet, and
// process*ForGateway for a listener).
func newScopeGraph(held []engine.Scope, parents map[string][]parentRef, g *topology.Graph) *scopeGraph {
	sg := &scopeGraph{children: map[engine.Scope]map[engine.Scope]bool{}, contains: map[engine.Scope]map[engine.Scope]bool{}}
	lsGateway := func(ls topology.Key) (engine.Scope, bool) {
		if g == nil {
			return engine.Scope{}, false
		}
		_, gw, ok := g.AttachedListenerSet(ls)
		return engine.Scope{Kind: "Gateway", Namespace: gw.Namespace, Name: gw.Name}, ok
	}
	for _, sc := range held {
		switch sc.Level() {
		case engine.LevelListener, engine.LevelListenerSet:
			sg.addListener(sc, lsGateway)
		case engine.LevelRoute, engine.LevelRule:
			route := whole(sc)
			for _, pa := range parents[route.Kind+" "+route.Namespace+"/"+route.Name] {
				sg.addRoute(route, pa, lsGateway)
			}
		}
	}
	return sg
}

// addListener records a listener or ListenerSet-wide policy's scope beneath its parent.
func (g *scopeGraph) addListener(sc engine.Scope, lsGateway func(topology.Key) (engine.Scope, bool)) {
	if sc.Kind == "Gateway" {
		g.add(whole(sc), sc)
		return
	}
	gw, ok := lsGateway(topology.Key{Namespace: sc.Namespace, Name: sc.Name})
	if !ok {
		return
	}
	if sc.Section == "" {
		g.add(gw, sc)
		return
	}
	insert(g.contains, gw, whole(sc))
	g.add(whole(sc), sc)
}

// addRoute records a route policy's route beneath one of its parentRefs.
func (g *scopeGraph) addRoute(route engine.Scope, pa parentRef, lsGateway func(topology.Key) (engine.Scope, bool)) {
	parent := engine.Scope{Kind: pa.kind, Namespace: pa.key.Namespace, Name: pa.key.Name, Section: pa.section}
	if pa.kind == "ListenerSet" {
		gw, ok := lsGateway(pa.key)
		if !ok {
			return
		}
		insert(g.contains, gw, whole(parent))
	}
	g.add(parent, route)
}

// beneath is helpers.go policyScopeGraph.GetWithDescendants: the scopes with a policy beneath sc.
func (g *scopeGraph) beneath(sc engine.Scope) map[engine.Scope]bool {
	out := map[engine.Scope]bool{}
	union := func(from engine.Scope) {
		for c := range g.children[from] {
			out[c] = true
		}
	}
	union(sc)
	if sc.Section != "" {
		// A listener inherits the routes attached to its whole Gateway or ListenerSet.
		for c := range g.children[whole(sc)] {
			if c.Level() == engine.LevelRoute {
				out[c] = true
			}
		}
		return out
	}
	for d := range g.contains[sc] {
		union(d)
		if d.Kind == "ListenerSet" && d.Section == "" {
			for sub := range g.contains[d] {
				union(sub)
			}
		}
	}
	return out
}

// overridden reports whether the policy on Gateway, ListenerSet or listener scope sc is
// Overridden: a scope beneath it has a policy other than the routes merged into it (merged).
func (g *scopeGraph) overridden(sc engine.Scope, merged map[engine.Scope]bool) bool {
	for c := range g.beneath(sc) {
		if !merged[c] {
			return true
		}
	}
	return false
}
