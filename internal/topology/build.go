package topology

import (
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Build computes the paths and indexes. Inputs are not modified.
func Build(in Input) *Graph {
	return BuildObjects(Objects{
		GatewayClasses: pointers(in.GatewayClasses), Gateways: pointers(in.Gateways), HTTPRoutes: pointers(in.HTTPRoutes),
		GRPCRoutes: pointers(in.GRPCRoutes), ListenerSets: pointers(in.ListenerSets), TLSRoutes: pointers(in.TLSRoutes),
		TCPRoutes: pointers(in.TCPRoutes), UDPRoutes: pointers(in.UDPRoutes), NamespaceLabels: in.NamespaceLabels,
	})
}

// Objects is an Input by reference: what BuildObjects builds from, without a copy of each object
// (a replica's informer objects, which nothing modifies). The graph keeps the Gateways and
// ListenerSets it is given, and reads the rest.
type Objects struct {
	GatewayClasses  []*gwv1.GatewayClass
	Gateways        []*gwv1.Gateway
	HTTPRoutes      []*gwv1.HTTPRoute
	GRPCRoutes      []*gwv1.GRPCRoute
	ListenerSets    []*gwv1.ListenerSet
	TLSRoutes       []*gwv1.TLSRoute
	TCPRoutes       []*gwv1.TCPRoute
	UDPRoutes       []*gwv1.UDPRoute
	NamespaceLabels map[string]map[string]string
}

// BuildObjects is Build over objects given by reference. The objects must not be modified
// afterwards (the graph keeps some of them), and the slices are not kept.
func BuildObjects(in Objects) *Graph {
	classes := make([]Class, len(in.GatewayClasses))
	for i, gc := range in.GatewayClasses {
		classes[i] = Class{gc.Name, string(gc.Spec.ControllerName)}
	}
	routes := make([]*Route, 0, len(in.HTTPRoutes)+len(in.GRPCRoutes)+len(in.TLSRoutes)+len(in.TCPRoutes)+len(in.UDPRoutes))
	for _, r := range in.HTTPRoutes {
		routes = append(routes, HTTPRouteOf(r))
	}
	for _, r := range in.GRPCRoutes {
		routes = append(routes, GRPCRouteOf(r))
	}
	for _, r := range in.TLSRoutes {
		routes = append(routes, TLSRouteOf(r))
	}
	for _, r := range in.TCPRoutes {
		routes = append(routes, TCPRouteOf(r))
	}
	for _, r := range in.UDPRoutes {
		routes = append(routes, UDPRouteOf(r))
	}
	return build(slices.Clone(in.Gateways), slices.Clone(in.ListenerSets), routes, classes, in.NamespaceLabels)
}

// pointers is a pointer to each element of xs, in order.
func pointers[T any](xs []T) []*T {
	out := make([]*T, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}

// Compact builds g anew from its objects: the same graph, without the removed paths an updated
// graph keeps (Stale), and numbered afresh (a new lineage).
func (g *Graph) Compact() *Graph {
	gws := make([]*gwv1.Gateway, 0, g.gateways.len())
	g.gateways.each(func(_ Key, gw *gwv1.Gateway) bool {
		gws = append(gws, gw)
		return true
	})
	lsets := make([]*gwv1.ListenerSet, 0, g.lsets.len())
	g.lsets.each(func(_ Key, ls *gwv1.ListenerSet) bool {
		lsets = append(lsets, ls)
		return true
	})
	routes := make([]*Route, 0, g.nroutes)
	g.routes.each(func(_ int, r *Route) {
		if r != nil {
			routes = append(routes, r)
		}
	})
	var classes []Class
	g.classes.each(func(c string, controller string) bool {
		classes = append(classes, Class{c, controller})
		return true
	})
	ns := make(map[string]map[string]string, g.nsLabels.len())
	g.nsLabels.each(func(n string, l map[string]string) bool {
		ns[n] = l
		return true
	})
	return build(gws, lsets, routes, classes, ns)
}

// build is Build over Gateways, ListenerSets, routes, GatewayClasses and namespace labels.
func build(gateways []*gwv1.Gateway, lsets []*gwv1.ListenerSet, routes []*Route, classes []Class, nsLabels map[string]map[string]string) *Graph {
	e := newEditor(&Graph{line: &lineage{}})
	e.inOrder = true
	for _, gw := range gateways {
		e.gateways.set(Key{gw.Namespace, gw.Name}, gw)
	}
	slices.SortFunc(lsets, func(a, b *gwv1.ListenerSet) int { return Key{a.Namespace, a.Name}.Compare(Key{b.Namespace, b.Name}) })
	gwLsets := map[Key][]Key{}
	nsLsets := map[string][]Key{}
	for _, ls := range lsets {
		k := Key{ls.Namespace, ls.Name}
		if _, dup := e.lsets.get(k); dup {
			continue
		}
		e.lsets.set(k, ls)
		if pk, ok := lsParentKey(ls); ok {
			gwLsets[pk] = append(gwLsets[pk], k)
		}
		nsLsets[k.Namespace] = append(nsLsets[k.Namespace], k)
	}
	for k, ls := range gwLsets {
		e.gwLsets.set(k, ls)
	}
	for ns, ls := range nsLsets {
		e.nsLsets.set(ns, ls)
	}
	for _, c := range classes {
		e.classes.set(c.Name, c.Controller)
	}
	for ns, l := range nsLabels {
		e.nsLabels.set(ns, l)
	}
	reserve(e, gateways, lsets, routes, len(classes))
	slices.SortFunc(routes, routeCompare)
	refs := map[Target][]int32{}
	byNS := map[string][]int32{}
	var unattached []Target
	var buf []Path // the paths of one route, before addPath copies them
	for _, r := range routes {
		rt := r.target()
		id := e.id(rt)
		if _, dup := e.route(id); dup {
			continue // the same route twice in the input: the first stands
		}
		e.putRoute(id, r)
		for _, k := range parentKeys(r) {
			refs[k] = append(refs[k], id)
		}
		byNS[r.Key.Namespace] = append(byNS[r.Key.Namespace], id)
		ps := e.appendRoutePaths(buf[:0], r)
		buf = ps
		for j, p := range ps {
			e.addPath(p, j)
		}
		if len(ps) == 0 {
			unattached = append(unattached, rt)
			e.unattached.set(rt, true)
		}
	}
	for k, ts := range refs {
		e.refs.set(k, ts)
	}
	for ns, ts := range byNS {
		e.nsRoutes.set(ns, ts)
	}
	e.flush()
	// Listeners without routes still have an effective policy of their own.
	keys := make([]Key, 0, len(gateways))
	e.gateways.m.each(func(k Key, _ *gwv1.Gateway) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, Key.Compare)
	for _, k := range keys {
		e.listenerPaths(k)
		ls, _ := e.gwLsets.get(k)
		for _, l := range ls {
			e.lsListenerPaths(l)
		}
	}
	for _, c := range classes {
		e.id(Target{Kind: "GatewayClass", Name: c.Name})
	}
	g := e.done()
	g.Unattached = unattached
	return g
}

// reserve sizes a build's indexes and paths for the gateways, ListenerSets, routes and classes,
// which it counts (a parentRef that names no listener may attach to more than one: the paths are
// then more). The targets are counted whole: one more than reserved doubled the slice of them.
func reserve(e *editor, gateways []*gwv1.Gateway, lsets []*gwv1.ListenerSet, routes []*Route, classes int) {
	targets, paths := classes+1, 0 // a Gateway may name a class that does not exist
	for _, ls := range lsets {
		targets += 1 + len(ls.Spec.Listeners)
		paths += len(ls.Spec.Listeners)
	}
	for _, gw := range gateways {
		targets += 1 + len(gw.Spec.Listeners)
		paths += len(gw.Spec.Listeners)
	}
	for _, r := range routes {
		targets += 1 + len(r.Rules)
		paths += len(r.Parents) * len(r.Rules)
	}
	e.targetIDs.reserve(targets)
	e.placeIDs.routes.reserve(len(routes))
	g := e.g
	g.Paths, g.seqs, g.pathIDs, g.places = make([]Path, 0, paths), make([]int32, 0, paths), make([][MaxTargets]int32, 0, paths), make([]int32, 0, paths)
	g.targets, e.fresh = make([]Target, 0, targets), make([][]int, 0, targets)
}

// HTTPRouteOf is an HTTPRoute as far as attachment goes.
func HTTPRouteOf(r *gwv1.HTTPRoute) *Route {
	names := make([]*gwv1.SectionName, len(r.Spec.Rules))
	for j := range r.Spec.Rules {
		names[j] = r.Spec.Rules[j].Name
	}
	return newRoute("HTTPRoute", r.Namespace, r.Name, r.Spec.ParentRefs, names, r.Spec.Hostnames)
}

// GRPCRouteOf is a GRPCRoute as far as attachment goes.
func GRPCRouteOf(r *gwv1.GRPCRoute) *Route {
	names := make([]*gwv1.SectionName, len(r.Spec.Rules))
	for j := range r.Spec.Rules {
		names[j] = r.Spec.Rules[j].Name
	}
	return newRoute("GRPCRoute", r.Namespace, r.Name, r.Spec.ParentRefs, names, r.Spec.Hostnames)
}

// TLSRouteOf is a TLSRoute as far as attachment goes.
func TLSRouteOf(r *gwv1.TLSRoute) *Route {
	names := make([]*gwv1.SectionName, len(r.Spec.Rules))
	for j := range r.Spec.Rules {
		names[j] = r.Spec.Rules[j].Name
	}
	return newRoute("TLSRoute", r.Namespace, r.Name, r.Spec.ParentRefs, names, r.Spec.Hostnames)
}

// TCPRouteOf is a TCPRoute as far as attachment goes.
func TCPRouteOf(r *gwv1.TCPRoute) *Route {
	names := make([]*gwv1.SectionName, len(r.Spec.Rules))
	for j := range r.Spec.Rules {
		names[j] = r.Spec.Rules[j].Name
	}
	return newRoute("TCPRoute", r.Namespace, r.Name, r.Spec.ParentRefs, names, nil)
}

// UDPRouteOf is a UDPRoute as far as attachment goes.
func UDPRouteOf(r *gwv1.UDPRoute) *Route {
	names := make([]*gwv1.SectionName, len(r.Spec.Rules))
	for j := range r.Spec.Rules {
		names[j] = r.Spec.Rules[j].Name
	}
	return newRoute("UDPRoute", r.Namespace, r.Name, r.Spec.ParentRefs, names, nil)
}

func (r *Route) target() Target {
	return Target{Kind: r.Kind, Namespace: r.Key.Namespace, Name: r.Key.Name}
}

// editor writes the next version of a graph: the persistent indexes through their edits, the paths
// appended in place (see lineage), and the lists of paths of each target changed at flush.
type editor struct {
	g          *Graph
	gateways   *pmapEdit[Key, *gwv1.Gateway]
	lsets      *pmapEdit[Key, *gwv1.ListenerSet]
	routes     *pvecEdit[*Route]
	unattached *pmapEdit[Target, bool]
	classes    *pmapEdit[string, string]
	nsLabels   *pmapEdit[string, map[string]string]
	refs       *pmapEdit[Target, []int32]
	nsRoutes   *pmapEdit[string, []int32]
	gwLsets    *pmapEdit[Key, []Key]
	nsLsets    *pmapEdit[string, []Key]
	targetIDs  *idIndexEdit
	placeIDs   *placeIndexEdit
	paths      *pvecEdit[plist]
	// added and dropped are the paths going into and out of each target's list, until flush: added
	// holds those of the targets numbered before the edit, fresh those of the targets it numbers
	// (fresh[id-base]), by number rather than in a map: a build numbers every target and adds each
	// path to six lists, and a map of them as large as the graph cost a cache miss at each.
	added   map[int32][]int
	fresh   [][]int
	base    int32
	dropped map[int32]map[int]bool
	// place is the place of the path added last, not yet written to placeIDs (when pending): the
	// paths of one route come one after another and share their place.
	place        placeKey
	placeVal     place
	placePending bool
	// last holds the targets of the path added last at each level with their numbers: the paths of
	// one route come one after another and share all but the rule, which spares most lookups.
	last    [MaxTargets]Target
	lastIDs [MaxTargets]int32
	// gws and lss are the Gateways and ListenerSets whose listeners may have gained or lost their
	// last route (or whose listeners changed).
	gws map[Key]bool
	lss map[Key]bool
	// redone are the routes re-attached by this edit.
	redone map[Target]bool
	// inOrder is set when the paths are added in path order (a build numbers them so): the paths
	// added to a list are then in path order already, and merge need not compare them (each
	// comparison reads two paths, which at 10x are seldom in a cache).
	inOrder bool
}

func newEditor(from *Graph) *editor {
	g := *from
	if g.line == nil {
		g.line = &lineage{}
	}
	g.line.mu.Lock()
	fork := g.line.paths != len(g.Paths) || g.line.targets != len(g.targets)
	if !fork {
		g.line.paths, g.line.targets = -1, -1 // claimed: another update of from is a fork
	}
	g.line.mu.Unlock()
	if fork {
		g.Paths = slices.Clip(g.Paths)
		g.pathIDs, g.seqs, g.places, g.targets = slices.Clip(g.pathIDs), slices.Clip(g.seqs), slices.Clip(g.places), slices.Clip(g.targets)
		g.line = &lineage{paths: -1, targets: -1}
	}
	return &editor{
		g: &g, gateways: g.gateways.edit(), lsets: g.lsets.edit(), routes: g.routes.edit(), unattached: g.unattached.edit(),
		classes: g.classes.edit(), nsLabels: g.nsLabels.edit(), refs: g.refs.edit(), nsRoutes: g.nsRoutes.edit(),
		gwLsets: g.gwLsets.edit(), nsLsets: g.nsLsets.edit(),
		targetIDs: g.targetIDs.edit(), placeIDs: g.placeIDs.edit(), paths: g.paths.edit(),
		added: map[int32][]int{}, base: int32(len(g.targets)), dropped: map[int32]map[int]bool{},
		gws: map[Key]bool{}, lss: map[Key]bool{}, redone: map[Target]bool{},
	}
}

// done flushes and returns the new version.
func (e *editor) done() *Graph {
	e.flush()
	g := e.g
	g.gateways, g.routes, g.unattached, g.classes = e.gateways.done(), e.routes.done(), e.unattached.done(), e.classes.done()
	g.lsets, g.gwLsets, g.nsLsets = e.lsets.done(), e.gwLsets.done(), e.nsLsets.done()
	g.nsLabels, g.refs, g.nsRoutes = e.nsLabels.done(), e.refs.done(), e.nsRoutes.done()
	g.targetIDs, g.placeIDs, g.paths = e.targetIDs.done(), e.placeIDs.done(), e.paths.done()
	g.line.mu.Lock()
	g.line.paths, g.line.targets = len(g.Paths), len(g.targets)
	g.line.mu.Unlock()
	return g
}

// route is the route of target number id; false when there is none.
func (e *editor) route(id int32) (*Route, bool) {
	r := e.routes.get(int(id))
	return r, r != nil
}

// routeOf is the route of target t (no section); false when there is none.
func (e *editor) routeOf(t Target) (*Route, bool) {
	if id, ok := e.targetIDs.get(t, e.g.targets); ok {
		return e.route(id)
	}
	return nil, false
}

// putRoute sets the route of target number id to r (nil: deleted).
func (e *editor) putRoute(id int32, r *Route) {
	old := e.routes.get(int(id))
	switch {
	case old == nil && r != nil:
		e.g.nroutes++
	case old != nil && r == nil:
		e.g.nroutes--
	}
	e.routes.set(int(id), r)
}

// id returns the number of target t, numbering it if it is new.
func (e *editor) id(t Target) int32 {
	id, ok, h := e.targetIDs.find(t, e.g.targets)
	if !ok {
		id = int32(len(e.g.targets))
		e.g.targets = append(e.g.targets, t)
		e.fresh = append(e.fresh, nil)
		e.targetIDs.setAt(h, id)
		e.paths.set(int(id), nil)
	}
	return id
}

// addPath adds path p, at position seq among its route's (or its Gateway's listeners').
func (e *editor) addPath(p Path, seq int) {
	g := e.g
	i := len(g.Paths)
	g.Paths = append(g.Paths, p)
	g.seqs = append(g.seqs, int32(seq))
	ts, n := p.LevelTargets()
	var ids [MaxTargets]int32
	for j := 0; j < n; j++ {
		t := ts[j].Target
		if t == e.last[j] {
			ids[j] = e.lastIDs[j]
		} else {
			ids[j] = e.id(t)
			e.last[j], e.lastIDs[j] = t, ids[j]
		}
		e.addTo(ids[j], i)
	}
	g.pathIDs = append(g.pathIDs, ids)
	k := placeOf(p)
	if !e.placePending || k != e.place {
		e.writePlace()
		pl, _ := e.placeIDs.get(k)
		e.place, e.placeVal, e.placePending = k, pl, true
	}
	if e.placeVal.n == 0 {
		e.placeVal.id = int32(i)
	}
	e.placeVal.n++
	g.places = append(g.places, e.placeVal.id)
	g.live++
}

// writePlace writes the pending place of the paths added last to placeIDs.
func (e *editor) writePlace() {
	if e.placePending {
		e.placeIDs.set(e.place, e.placeVal)
		e.placePending = false
	}
}

// addTo adds path i to the paths going into the list of target id.
func (e *editor) addTo(id int32, i int) {
	if id >= e.base {
		e.fresh[id-e.base] = append(e.fresh[id-e.base], i)
		return
	}
	e.added[id] = append(e.added[id], i)
}

// addedTo is the paths going into the list of target id (nil: none).
func (e *editor) addedTo(id int32) []int {
	if id >= e.base {
		return e.fresh[id-e.base]
	}
	return e.added[id]
}

// dropPath takes path i out of the indexes (it stays in Paths).
func (e *editor) dropPath(i int) {
	e.writePlace()
	p := &e.g.Paths[i]
	for _, id := range e.g.pathIDs[i][:p.Depth()] {
		d := e.dropped[id]
		if d == nil {
			d = map[int]bool{}
			e.dropped[id] = d
		}
		d[i] = true
	}
	k := placeOf(*p)
	pl, _ := e.placeIDs.get(k)
	if pl.n--; pl.n <= 0 {
		e.placeIDs.del(k)
	} else {
		e.placeIDs.set(k, pl)
	}
	e.g.live--
}

func placeOf(p Path) placeKey {
	if p.RouteKind == "" {
		return placeKey{gateway: p.Gateway, listenerSet: p.ListenerSet, listener: p.Listener}
	}
	return placeKey{route: p.Route}
}

// flush writes the lists of paths of the targets that gained or lost some, in path order.
func (e *editor) flush() {
	e.writePlace()
	for id := range e.added {
		e.merge(id)
	}
	for j, add := range e.fresh {
		if add != nil {
			e.merge(e.base + int32(j))
		}
	}
	for id := range e.dropped {
		if e.addedTo(id) == nil {
			e.merge(id)
		}
	}
	e.added = emptied(e.added)
	clear(e.fresh)
	e.dropped = emptied(e.dropped)
}

// emptied is m with no entries. A map that held many is replaced rather than cleared: Go keeps a
// cleared map's storage, and every later range over it walks all of it, so flushing after each
// Gateway of a large build walked the whole build's targets again each time (quadratic).
func emptied[K comparable, V any](m map[K]V) map[K]V {
	if len(m) > 64 {
		return make(map[K]V)
	}
	clear(m)
	return m
}

// list is the list of paths of target id with the paths added and dropped since the last flush
// merged in. Reading through it lets the lists be written once per edit (at done), not after each
// Gateway's listeners: a flush rewrites the GatewayClass's list, which holds every path of the
// class, so flushing per Gateway made a build quadratic in the Gateways.
func (e *editor) list(id int32) plist {
	_, d := e.dropped[id]
	if e.addedTo(id) != nil || d {
		e.merge(id)
		if id >= e.base {
			e.fresh[id-e.base] = nil
		} else {
			delete(e.added, id)
		}
		delete(e.dropped, id)
	}
	return e.paths.get(int(id))
}

// merge writes the list of target id with its added paths in and its dropped ones out.
func (e *editor) merge(id int32) {
	cmp := e.g.ComparePaths
	add := e.addedTo(id)
	if !e.inOrder && !slices.IsSortedFunc(add, cmp) {
		slices.SortFunc(add, cmp)
	}
	e.paths.set(int(id), e.paths.get(int(id)).with(add, e.dropped[id], cmp))
}
