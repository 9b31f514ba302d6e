package engine

import (
	"slices"
	"sort"
	"strings"

	"github.com/benbjohnson/immutable"

	"github.com/precedent-dev/precedent/internal/topology"
)

// A Snapshot follows a topology event with a step too (WithTopology): it redoes the paths and scopes
// of what the event touches (a route; a Gateway with its listeners, its ListenerSets and the routes
// through it; the Gateways of a ListenerSet or of a GatewayClass) from the graph after the event, and
// resolves again the policies that name what it touched and those with targetSelectors.

// labeledKinds are the kinds whose labels a topology event brings (the others' come with their
// objects: WithObject).
var labeledKinds = []string{"Gateway", "HTTPRoute", "GRPCRoute"}

// WithTopology returns the snapshot over g, the graph after an event on the object kind/key (a
// Gateway, ListenerSet or route; a GatewayClass by its name) whose labels are now labels (deleted:
// none), as NewSnapshot builds it over g from the same objects. It returns nil when it cannot step: a
// snapshot built without a graph, another kind (a Namespace), or one with more dead paths than live.
func (s *Snapshot) WithTopology(g *topology.Graph, kind string, key topology.Key, labels map[string]string, deleted bool) *Snapshot {
	if s.graph == nil || g == nil {
		return nil
	}
	n := s.next()
	old := s.graph
	n.graph = g
	var touched []Scope
	switch {
	case routeKinds[kind]:
		n.redoRoute(old, topology.Target{Kind: kind, Namespace: key.Namespace, Name: key.Name})
		touched = []Scope{{Kind: kind, Namespace: key.Namespace, Name: key.Name}}
	case kind == "Gateway":
		touched = n.redoGateway(old, key)
	case kind == "ListenerSet":
		touched = []Scope{{Kind: kind, Namespace: key.Namespace, Name: key.Name}}
		for _, gr := range []*topology.Graph{old, g} {
			if _, gk, ok := gr.AttachedListenerSet(key); ok {
				touched = append(touched, n.redoGateway(old, gk)...)
			}
		}
	case kind == "GatewayClass":
		for _, k := range g.GatewayKeys() {
			if gw, _ := g.Gateway(k); string(gw.Spec.GatewayClassName) == key.Name {
				touched = append(touched, n.redoGateway(old, k)...)
			}
		}
	default:
		return nil
	}
	if slices.Contains(labeledKinds, kind) {
		n.setObject(kind, key, labels, deleted)
	}
	n.resolveAgain(touched)
	if n.paths.ndead > n.paths.len()-n.paths.ndead+1000 || n.listeners.ndead > n.listeners.len()-n.listeners.ndead+1000 {
		return nil
	}
	return n
}

// WithObject returns the snapshot after the labels of a ListenerSet or L4 route (what targetSelectors
// match; its place in the topology comes from the graph) became labels (deleted: none).
func (s *Snapshot) WithObject(kind string, key topology.Key, labels map[string]string, deleted bool) *Snapshot {
	n := s.next()
	n.setObject(kind, key, labels, deleted)
	n.resolveAgain(nil)
	return n
}

// redoRoute replaces the paths and scopes of route t (what graph old gave) with those the graph
// gives now.
func (s *Snapshot) redoRoute(old *topology.Graph, t topology.Target) {
	rs := Scope{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}
	if r, ok := old.Route(t); ok {
		s.exists = s.exists.del(rs)
		for _, rule := range r.Rules {
			s.exists = s.exists.del(Scope{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name, Section: rule})
		}
	}
	s.b = newBuilding()
	defer func() { s.b = nil }()
	g := s.graph
	if r, ok := g.Route(t); ok {
		s.markRoute(t.Kind, r.Key, r.Rules)
	}
	for _, i := range g.PathsFor(t) {
		tp := g.Paths[i]
		if tp.RouteKind == "" || !g.Serves(tp.Class, s.controllers) {
			continue
		}
		s.add(Path{Gateway: tp.Gateway, ListenerSet: tp.ListenerSet, Listener: tp.Listener, RouteKind: tp.RouteKind, Route: tp.Route, Rule: tp.Rule})
	}
	s.merge(s.b)
	if was := s.paths.under.get(rs); !s.paths.same(was, s.b.paths) {
		s.paths.drop(was, Path.chainScopes)
		s.paths.insertRoute(s.b.paths, &s.b.under)
	}
}

// redoGateway replaces the scopes and listener paths of Gateway k and of its ListenerSets, and the
// paths of the routes through it, with those the graph gives now; it returns the scopes of the
// Gateway and of the ListenerSets attached to it before or after.
func (s *Snapshot) redoGateway(old *topology.Graph, k topology.Key) []Scope {
	gs := Scope{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name}
	routes := map[topology.Target]bool{}
	for _, i := range s.paths.under.get(gs) {
		p, _ := s.paths.at(int(i))
		routes[topology.Target{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name}] = true
	}
	for _, i := range s.graph.PathsFor(topology.Target{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name}) {
		if tp := s.graph.Paths[i]; tp.RouteKind != "" {
			routes[topology.Target{Kind: tp.RouteKind, Namespace: tp.Route.Namespace, Name: tp.Route.Name}] = true
		}
	}
	ordered := make([]topology.Target, 0, len(routes))
	for t := range routes {
		ordered = append(ordered, t)
	}
	sort.Slice(ordered, func(i, j int) bool { return ordered[i].String() < ordered[j].String() })
	for _, t := range ordered {
		s.redoRoute(old, t)
	}
	touched := s.dropGatewayScopes(old, k)
	return append(touched, s.addGatewayScopes(k)...)
}

// dropGatewayScopes removes the scopes graph old gave Gateway k and the ListenerSets attached to
// it, and returns the ListenerSets' scopes and the Gateway's.
func (s *Snapshot) dropGatewayScopes(old *topology.Graph, k topology.Key) []Scope {
	gs := Scope{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name}
	touched := []Scope{gs}
	s.exists = s.exists.del(gs)
	if gw, ok := old.Gateway(k); ok {
		for _, l := range gw.Spec.Listeners {
			s.exists = s.exists.del(Scope{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name, Section: string(l.Name)})
		}
	}
	for _, lk := range old.ListenerSetKeys() {
		obj, gk, ok := old.AttachedListenerSet(lk)
		if !ok || gk != k {
			continue
		}
		ls := Scope{Kind: "ListenerSet", Namespace: lk.Namespace, Name: lk.Name}
		touched = append(touched, ls)
		s.exists = s.exists.del(ls)
		for _, l := range obj.Spec.Listeners {
			s.exists = s.exists.del(Scope{Kind: "ListenerSet", Namespace: lk.Namespace, Name: lk.Name, Section: string(l.Name)})
		}
	}
	return touched
}

// addGatewayScopes adds the scopes the graph gives Gateway k and the ListenerSets attached to it, as
// a build adds them, and replaces their listener paths when they changed; it returns the
// ListenerSets' scopes.
func (s *Snapshot) addGatewayScopes(k topology.Key) []Scope {
	g := s.graph
	s.b = newBuilding()
	defer func() { s.b = nil }()
	s.addGateway(g, k, s.controllers)
	serves := func(gk topology.Key) bool {
		gw, ok := g.Gateway(gk)
		return gk == k && ok && g.Serves(string(gw.Spec.GatewayClassName), s.controllers)
	}
	var touched []Scope
	for _, lk := range g.ListenerSetKeys() {
		if _, ok := s.addGraphListenerSet(g, lk, serves); ok {
			touched = append(touched, Scope{Kind: "ListenerSet", Namespace: lk.Namespace, Name: lk.Name})
		}
	}
	s.merge(s.b)
	gs := Scope{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name}
	if was := s.listeners.under.get(gs); !s.listeners.same(was, s.b.listeners) {
		s.listeners.drop(was, Path.parents)
		s.listeners.insertBlock(s.b.listeners, &s.b.lunder)
	}
	return touched
}

// merge adds the scopes b found to the snapshot's.
func (s *Snapshot) merge(b *building) {
	for sc := range b.exists {
		s.exists = s.exists.set(sc, true)
	}
}

// setObject records the labels of the object kind/key for targetSelectors (deleted: removes it).
func (s *Snapshot) setObject(kind string, key topology.Key, labels map[string]string, deleted bool) {
	objs := s.objects[kind]
	if objs == nil {
		objs = immutable.NewSortedMap[topology.Key, Object](keyComparer{})
	}
	if deleted {
		objs = objs.Delete(key)
	} else {
		objs = objs.Set(key, Object{Kind: kind, Key: key, Labels: labels})
	}
	objects := make(map[string]objectMap, len(s.objects)+1)
	for k, v := range s.objects {
		objects[k] = v
	}
	objects[kind] = objs
	s.objects = objects
}

// resolveAgain resolves again the policies whose targetRefs name one of the objects touched, and
// those with targetSelectors.
func (s *Snapshot) resolveAgain(touched []Scope) {
	keys := map[policyKey]bool{}
	for _, sc := range touched {
		for _, k := range s.named.get(sc) {
			keys[k] = true
		}
	}
	for k := range s.selecting.all() {
		keys[k] = true
	}
	ordered := make([]policyKey, 0, len(keys))
	for k := range keys {
		ordered = append(ordered, k)
	}
	sort.Slice(ordered, func(i, j int) bool {
		a, b := ordered[i], ordered[j]
		return a.Kind+"/"+a.Ref.String() < b.Kind+"/"+b.Ref.String()
	})
	for _, k := range ordered {
		if pp, ok := s.resolved[k.Kind].lookup(k.Ref); ok {
			s.setPolicy(k.Kind, k.Ref, pp.policy)
		}
	}
}

// chainScopes is the scopes of a path (Chain without the copy).
func (p Path) chainScopes() []Scope {
	c, n := p.chain()
	return c[:n]
}

// drop marks the paths idx dead and removes them from the lists of the scopes scopes gives.
func (x *pathIndex) drop(idx []int32, scopes func(Path) []Scope) {
	gone := map[Scope][]int32{}
	for _, i := range idx {
		p, live := x.at(int(i))
		if !live {
			continue
		}
		x.dead = x.dead.set(i, true)
		x.ndead++
		for _, sc := range scopes(p) {
			gone[sc] = append(gone[sc], i)
		}
	}
	for sc, is := range gone {
		left := slices.DeleteFunc(slices.Clone(x.under.get(sc)), func(i int32) bool { return slices.Contains(is, i) })
		if len(left) == 0 {
			x.under = x.under.del(sc)
		} else {
			x.under = x.under.set(sc, left)
		}
	}
}

// same reports whether the paths idx are paths, in order.
func (x *pathIndex) same(idx []int32, paths []Path) bool {
	if len(idx) != len(paths) {
		return false
	}
	for j, i := range idx {
		if p, _ := x.at(int(i)); p != paths[j] {
			return false
		}
	}
	return true
}

// appendPaths adds paths at the end of the list and returns their numbers.
func (x *pathIndex) appendPaths(paths []Path) []int32 {
	nums := make([]int32, len(paths))
	l := x.added
	for i, p := range paths {
		nums[i] = int32(len(x.base) + l.Len())
		l = l.Append(p)
	}
	x.added = l
	return nums
}

// insertRoute adds the paths of one route (numbered 0… in under, in a build's order) to the index:
// in each scope's list, the route's paths go where a build puts them (routes ordered by key, then
// kind).
func (x *pathIndex) insertRoute(paths []Path, under *scopeLists) {
	if len(paths) == 0 {
		return
	}
	nums := x.appendPaths(paths)
	route := paths[0]
	for sc, j := range under.at { // each scope's list is set apart: their order does not matter
		local := under.lists[j]
		cur := x.under.get(sc)
		at := sort.Search(len(cur), func(j int) bool {
			p, _ := x.at(int(cur[j]))
			return compareRoutes(p, route) > 0
		})
		next := make([]int32, 0, len(cur)+len(local))
		next = append(next, cur[:at]...)
		for _, i := range local {
			next = append(next, nums[i])
		}
		x.under = x.under.set(sc, append(next, cur[at:]...))
	}
}

// insertBlock adds listener paths (numbered 0… in under) whose scopes list nothing else.
func (x *pathIndex) insertBlock(paths []Path, under *scopeLists) {
	nums := x.appendPaths(paths)
	for sc, j := range under.at {
		local := under.lists[j]
		next := make([]int32, 0, len(local))
		for _, i := range local {
			next = append(next, nums[i])
		}
		x.under = x.under.set(sc, next)
	}
}

// compareRoutes orders the paths of two routes as the graph does (topology.Graph.ComparePaths):
// by route, then route kind.
func compareRoutes(a, b Path) int {
	if c := a.Route.Compare(b.Route); c != 0 {
		return c
	}
	return strings.Compare(a.RouteKind, b.RouteKind)
}
