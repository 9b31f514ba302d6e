package topology

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Graph is one version of the topology with its indexes. It is immutable: Build makes the first
// version, and the updates (update.go) make the next one from it in time proportional to what the
// changed object touches, sharing everything else, so a reader keeps the version it started with
// while the next one is written.
//
// Paths are numbered: Paths[i] is path i. A built graph numbers its paths in path order (routes by
// namespace/name then kind, each route's paths in parentRef, listener and rule order, then the
// listeners without routes by Gateway); an updated graph appends the paths it adds and keeps those
// it removes in Paths (they are in no index any more), so numbers stay valid from one version to the
// next. Lists of paths (PathsFor) are in path order (ComparePaths); PathIndexes lists the live ones.
type Graph struct {
	Paths []Path
	// Unattached lists routes attached to no Gateway listener, in route order.
	Unattached []Target

	gateways   pmap[Key, *gwv1.Gateway]
	lsets      pmap[Key, *gwv1.ListenerSet]
	routes     pvec[*Route]         // by the number of the route's target (Kind/Namespace/Name, no section); nil: none
	nroutes    int                  // the routes in routes
	unattached pmap[Target, bool]   // Unattached as a set
	classes    pmap[string, string] // GatewayClass objects: their controllerName
	nsLabels   pmap[string, map[string]string]
	// refs lists, by parent (a Gateway or ListenerSet target, no section), the routes whose
	// parentRefs name it (whether it exists or not); nsRoutes the routes of each namespace: what an
	// update of a parent or a namespace re-attaches, by their target numbers. gwLsets lists by Gateway the ListenerSets whose
	// parentRef names it, nsLsets the ListenerSets of each namespace (allowedListeners selectors).
	refs     pmap[Target, []int32]
	nsRoutes pmap[string, []int32]
	gwLsets  pmap[Key, []Key]
	nsLsets  pmap[string, []Key]

	// targetIDs numbers every target met (targets[id] is the target of number id); paths lists by
	// number the paths beneath each, in path order. pathIDs[i] holds the numbers of the targets of
	// path i in LevelTargets order, seqs[i] its position among the paths of its route (or among the
	// listeners of its Gateway), places[i] its place (PlaceID). Numbers are never reused within a
	// lineage of versions: a target that goes away keeps its number, with no paths.
	targetIDs idIndex
	targets   []Target
	paths     pvec[plist]
	pathIDs   [][MaxTargets]int32
	seqs      []int32
	places    []int32
	placeIDs  placeIndex
	live      int // paths in the indexes
	line      *lineage
}

// placeKey is what a path is about: a route (whatever its kind, rule or listener) or, for a path
// without a route, a Gateway or ListenerSet listener.
type placeKey struct {
	route       Key
	gateway     Key
	listenerSet Key
	listener    string
}

// placeIndex holds the place of each placeKey: a route's by its key alone (most places are
// routes', and a key of seven strings made the entry of each 120 bytes), a listener's by its key.
type placeIndex struct {
	routes    pmap[Key, place]
	listeners pmap[placeKey, place]
}

// placeIndexEdit writes a new version of a placeIndex.
type placeIndexEdit struct {
	routes    *pmapEdit[Key, place]
	listeners *pmapEdit[placeKey, place]
}

func (x placeIndex) edit() *placeIndexEdit {
	return &placeIndexEdit{routes: x.routes.edit(), listeners: x.listeners.edit()}
}

func (e *placeIndexEdit) get(k placeKey) (place, bool) {
	if k.route.Name != "" {
		return e.routes.get(k.route)
	}
	return e.listeners.get(k)
}

func (e *placeIndexEdit) set(k placeKey, pl place) {
	if k.route.Name != "" {
		e.routes.set(k.route, pl)
		return
	}
	e.listeners.set(k, pl)
}

func (e *placeIndexEdit) del(k placeKey) {
	if k.route.Name != "" {
		e.routes.del(k.route)
		return
	}
	e.listeners.del(k)
}

func (e *placeIndexEdit) done() placeIndex {
	return placeIndex{routes: e.routes.done(), listeners: e.listeners.done()}
}

// place is the number of a place (a path of it) and how many live paths it has.
type place struct {
	id int32
	n  int32
}

// lineage is shared by the versions of one graph made one from the other. The slices a version
// appends to (Paths, pathIDs, seqs, places, targets) share their arrays with the version before;
// lineage records how long the newest version's are, so that an update of an older version (a
// fork) copies them instead of writing over entries that a newer version owns.
type lineage struct {
	mu             sync.Mutex
	paths, targets int
}

// PathsFor returns the indexes of the paths beneath a target in path order (nil when it reaches
// none). The slice is the graph's own: callers must not modify it.
func (g *Graph) PathsFor(t Target) []int {
	if id, ok := g.targetIDs.get(t, g.targets); ok {
		return g.paths.get(int(id)).flat()
	}
	return nil
}

// Exists reports whether a target is a known object (or a known listener / route rule); a
// GatewayClass is known when it exists or a Gateway names it.
func (g *Graph) Exists(t Target) bool {
	switch t.Kind {
	case "GatewayClass":
		if t.Section != "" || t.Namespace != "" {
			return false
		}
		_, ok := g.classes.get(t.Name)
		return ok || len(g.PathsFor(t)) > 0
	case "Gateway":
		gw, ok := g.gateways.get(Key{t.Namespace, t.Name})
		if !ok || t.Section == "" {
			return ok
		}
		for _, l := range gw.Spec.Listeners {
			if string(l.Name) == t.Section {
				return true
			}
		}
	case "ListenerSet":
		ls, ok := g.lsets.get(Key{t.Namespace, t.Name})
		if !ok || t.Section == "" {
			return ok
		}
		for _, l := range ls.Spec.Listeners {
			if string(l.Name) == t.Section {
				return true
			}
		}
	case "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute":
		r, ok := g.Route(Target{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name})
		if !ok || t.Section == "" {
			return ok
		}
		return slices.Contains(r.Rules, t.Section)
	}
	return false
}

// Gateway returns the Gateway with key k.
func (g *Graph) Gateway(k Key) (*gwv1.Gateway, bool) { return g.gateways.get(k) }

// ListenerSet returns the ListenerSet with key k.
func (g *Graph) ListenerSet(k Key) (*gwv1.ListenerSet, bool) { return g.lsets.get(k) }

// ListenerSetKeys lists the keys of every ListenerSet, sorted.
func (g *Graph) ListenerSetKeys() []Key {
	out := make([]Key, 0, g.lsets.len())
	g.lsets.each(func(k Key, _ *gwv1.ListenerSet) bool {
		out = append(out, k)
		return true
	})
	slices.SortFunc(out, Key.Compare)
	return out
}

// GatewayKeys lists the keys of every Gateway, sorted.
func (g *Graph) GatewayKeys() []Key {
	out := make([]Key, 0, g.gateways.len())
	g.gateways.each(func(k Key, _ *gwv1.Gateway) bool {
		out = append(out, k)
		return true
	})
	slices.SortFunc(out, Key.Compare)
	return out
}

// NamespaceRoutes lists the routes of namespace ns, in route order: those whose attachment the
// namespace's labels decide (allowedRoutes selectors), as SetNamespace reattaches them.
func (g *Graph) NamespaceRoutes(ns string) []Target {
	ids, _ := g.nsRoutes.get(ns)
	out := make([]Target, len(ids))
	for i, id := range ids {
		out[i] = g.targets[id]
	}
	slices.SortFunc(out, targetCompare)
	return out
}

// NamespaceListenerSets lists the keys of the ListenerSets of namespace ns, sorted: those a
// Gateway's allowedListeners selector may take or leave when the namespace's labels change.
func (g *Graph) NamespaceListenerSets(ns string) []Key {
	ks, _ := g.nsLsets.get(ns)
	out := slices.Clone(ks)
	slices.SortFunc(out, Key.Compare)
	return out
}

// Route returns the route of target t (Kind, Namespace and Name; no section).
func (g *Graph) Route(t Target) (*Route, bool) {
	id, ok := g.targetIDs.get(t, g.targets)
	if !ok {
		return nil, false
	}
	r := g.routes.get(int(id))
	return r, r != nil
}

// RouteTargets lists the targets of every route, in route order.
func (g *Graph) RouteTargets() []Target {
	out := make([]Target, 0, g.nroutes)
	g.routes.each(func(id int, r *Route) {
		if r != nil {
			out = append(out, g.targets[id])
		}
	})
	slices.SortFunc(out, targetCompare)
	return out
}

// targetCompare orders route targets as routes are ordered: by namespace/name, then kind.
func targetCompare(a, b Target) int {
	if c := (Key{a.Namespace, a.Name}).Compare(Key{b.Namespace, b.Name}); c != 0 {
		return c
	}
	return strings.Compare(a.Kind, b.Kind)
}

// IsUnattached reports whether t (a route, or a rule of one) belongs to a route attached to no
// Gateway listener.
func (g *Graph) IsUnattached(t Target) bool {
	_, ok := g.unattached.get(Target{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name})
	return ok
}

// PlaceID numbers what path i is about to a reader of a warning: paths of the same route (by
// namespace and name, on any rule, listener or Gateway) share a number, and a path without a route
// has its listener's. The number is the index of a path of that place (on a built graph, the
// first).
func (g *Graph) PlaceID(i int) int32 { return g.places[i] }

// TargetID is the number of a known target (ok false for any other target). Numbers are dense, from
// 0 to TargetIDs()-1.
func (g *Graph) TargetID(t Target) (int32, bool) { return g.targetIDs.get(t, g.targets) }

// TargetIDs is the count of numbered targets.
func (g *Graph) TargetIDs() int { return len(g.targets) }

// TargetOfID is the target of number id (0 <= id < TargetIDs()).
func (g *Graph) TargetOfID(id int32) Target { return g.targets[id] }

// PathTargetIDs returns the numbers of the targets of path i, in the order of its LevelTargets
// (the first n entries count, n as LevelTargets returns it).
func (g *Graph) PathTargetIDs(i int) [MaxTargets]int32 { return g.pathIDs[i] }

// Extends reports whether g is old or a later version of it made by updates, so the target numbers
// of old mean the same in g (and numbers from old.TargetIDs() on are new).
func (g *Graph) Extends(old *Graph) bool {
	return old != nil && g.line == old.line && len(old.targets) <= len(g.targets) && len(old.Paths) <= len(g.Paths)
}

// ComparePaths orders paths i and j as a build numbers them: the paths of routes first, by route
// (namespace/name, then kind) and within a route in parentRef, listener and rule order; then the
// listeners without routes, by Gateway, then the Gateway's own before its ListenerSets' (by
// ListenerSet), and listener order.
func (g *Graph) ComparePaths(i, j int) int {
	if i == j {
		return 0
	}
	a, b := &g.Paths[i], &g.Paths[j]
	ar, br := a.RouteKind != "", b.RouteKind != ""
	switch {
	case ar && !br:
		return -1
	case br && !ar:
		return 1
	case ar:
		if c := a.Route.Compare(b.Route); c != 0 {
			return c
		}
		if c := strings.Compare(a.RouteKind, b.RouteKind); c != 0 {
			return c
		}
	default:
		if c := a.Gateway.Compare(b.Gateway); c != 0 {
			return c
		}
		if c := a.ListenerSet.Compare(b.ListenerSet); c != 0 {
			return c
		}
	}
	return cmp.Compare(g.seqs[i], g.seqs[j])
}

// Union merges two lists of path indexes in path order (as PathsFor returns them) without
// duplicates. When one is empty or both are equal, one of them is returned as is (it may be the
// graph's own: read only).
func (g *Graph) Union(a, b []int) []int {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0 || slices.Equal(a, b):
		return a
	}
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		c := 0
		switch {
		case j == len(b):
			c = -1
		case i == len(a):
			c = 1
		default:
			c = g.ComparePaths(a[i], b[j])
		}
		switch {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// Live reports whether path i is in this version (an updated graph keeps removed paths in Paths).
func (g *Graph) Live(i int) bool {
	if i < 0 || i >= len(g.Paths) {
		return false
	}
	if g.live == len(g.Paths) {
		return true
	}
	n := g.Paths[i].Depth()
	return g.paths.get(int(g.pathIDs[i][n-1])).contains(i, g.ComparePaths)
}

// PathIndexes lists the live paths, in path order.
func (g *Graph) PathIndexes() []int {
	out := make([]int, 0, g.live)
	ordered := true
	for i := range g.Paths {
		if g.Live(i) {
			if n := len(out); n > 0 && g.ComparePaths(out[n-1], i) > 0 {
				ordered = false
			}
			out = append(out, i)
		}
	}
	if !ordered {
		slices.SortFunc(out, g.ComparePaths)
	}
	return out
}

// Stale reports whether the removed paths an updated graph keeps outnumber its live ones (and a
// thousand): time to Compact it.
func (g *Graph) Stale() bool { return len(g.Paths)-g.live > g.live+1000 }
