package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Group is the Gateway API group.
const Group = "gateway.networking.k8s.io"

// Level of the hierarchy, least to most specific.
type Level int

const (
	LevelGatewayClass Level = iota
	LevelGateway
	LevelListener
	LevelRoute
	LevelRule
)

func (l Level) String() string {
	return [...]string{"gatewayclass", "gateway", "listener", "route", "rule"}[l]
}

// Key is a namespaced name.
type Key struct {
	Namespace string
	Name      string
}

func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// Compare orders keys as their String forms order, without building them (sorting ten thousand
// routes compares keys some hundred thousand times).
func (k Key) Compare(o Key) int {
	if k.Namespace == o.Namespace {
		return strings.Compare(k.Name, o.Name)
	}
	la, lb := k.strLen(), o.strLen()
	for i := 0; i < la && i < lb; i++ {
		if a, b := k.strByte(i), o.strByte(i); a != b {
			return cmp.Compare(a, b)
		}
	}
	return cmp.Compare(la, lb)
}

func (k Key) strLen() int {
	if k.Namespace == "" {
		return len(k.Name)
	}
	return len(k.Namespace) + 1 + len(k.Name)
}

// strByte is byte i of k.String().
func (k Key) strByte(i int) byte {
	switch {
	case k.Namespace == "":
		return k.Name[i]
	case i < len(k.Namespace):
		return k.Namespace[i]
	case i == len(k.Namespace):
		return '/'
	}
	return k.Name[i-len(k.Namespace)-1]
}

// Target identifies something a policy can target (kind is HTTPRoute, GRPCRoute, Gateway or
// GatewayClass, all of the Gateway API group); Section is a listener or route rule name.
type Target struct {
	Kind      string
	Namespace string
	Name      string
	Section   string
}

func (t Target) String() string {
	s := t.Kind + " " + Key{t.Namespace, t.Name}.String()
	if t.Section != "" {
		s += "#" + t.Section
	}
	return s
}

// Path is one (gateway, listener, route, rule) through the graph; Route and Rule are empty for a
// listener that no route attaches to.
type Path struct {
	Class     string
	Gateway   Key
	Listener  string
	RouteKind string
	Route     Key
	Rule      string
}

// Targets lists what a policy may target to reach this path, least specific first, with its level.
func (p Path) Targets() []LeveledTarget {
	ts, n := p.LevelTargets()
	return ts[:n:n]
}

// LevelTargets is Targets without an allocation: the first n entries of the array are the targets
// (3 for a Gateway listener path, 5 for a route rule path).
func (p Path) LevelTargets() (ts [5]LeveledTarget, n int) {
	ts[0] = LeveledTarget{LevelGatewayClass, Target{Kind: "GatewayClass", Name: p.Class}}
	ts[1] = LeveledTarget{LevelGateway, Target{Kind: "Gateway", Namespace: p.Gateway.Namespace, Name: p.Gateway.Name}}
	ts[2] = LeveledTarget{LevelListener, Target{Kind: "Gateway", Namespace: p.Gateway.Namespace, Name: p.Gateway.Name, Section: p.Listener}}
	if p.RouteKind == "" {
		return ts, 3
	}
	ts[3] = LeveledTarget{LevelRoute, Target{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name}}
	ts[4] = LeveledTarget{LevelRule, Target{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name, Section: p.Rule}}
	return ts, 5
}

// LeveledTarget is a target and its level in the hierarchy.
type LeveledTarget struct {
	Level  Level
	Target Target
}

// Route is an HTTPRoute or GRPCRoute as far as attachment goes.
type Route struct {
	Kind    string
	Key     Key
	Parents []gwv1.ParentReference
	// Rules are the rule names, in order; unnamed rules get "rule-<index>" and are listed in Unnamed.
	Rules   []string
	Unnamed []string
}

// Input is what the graph is built from.
type Input struct {
	GatewayClasses []gwv1.GatewayClass
	Gateways       []gwv1.Gateway
	HTTPRoutes     []gwv1.HTTPRoute
	GRPCRoutes     []gwv1.GRPCRoute
	// NamespaceLabels holds the labels of known namespaces, for allowedRoutes selectors.
	NamespaceLabels map[string]map[string]string
}

// Graph is the built topology with its indexes.
type Graph struct {
	Paths    []Path
	Gateways map[Key]*gwv1.Gateway
	Routes   map[Target]*Route // keyed by Kind/Namespace/Name (no section)
	// Unattached lists routes attached to no Gateway listener.
	Unattached []Target
	unattached map[Target]bool // Unattached as a set
	// targetIDs numbers every known target (those on paths first, then the Gateways, listeners,
	// routes and classes without paths); paths[id] lists the paths beneath target id; pathIDs[i] holds
	// the ids of the targets of Paths[i] in LevelTargets order, so per-path lookups can index slices
	// instead of hashing targets.
	targetIDs map[Target]int32
	paths     [][]int
	pathIDs   [][5]int32
	// last holds the targets of the path added last at each level with their ids (zero before the
	// first, which no target equals): the paths of one route come one after another and share all but
	// the rule, which spares most lookups while building.
	last    [5]Target
	lastIDs [5]int32
	// places numbers what a path is about to a reader (see PlaceID), by first path index.
	placeIDs map[placeKey]int32
	places   []int32
}

// placeKey is what a path is about: a route (whatever its kind, rule or listener) or, for a path
// without a route, a Gateway listener.
type placeKey struct {
	route    Key
	gateway  Key
	listener string
}

// Build computes the paths and indexes. Inputs are not modified.
func Build(in Input) *Graph {
	// Sized for the usual shape (a route on one listener): growing maps of ten thousands of entries
	// rehashes them again and again.
	nr, ng := len(in.HTTPRoutes)+len(in.GRPCRoutes), len(in.Gateways)
	g := &Graph{
		Gateways:   make(map[Key]*gwv1.Gateway, ng),
		Routes:     make(map[Target]*Route, nr),
		targetIDs:  make(map[Target]int32, 3*nr+4*ng),
		paths:      make([][]int, 0, 3*nr+4*ng),
		placeIDs:   make(map[placeKey]int32, nr+2*ng),
		unattached: map[Target]bool{},
		Paths:      make([]Path, 0, 2*nr+2*ng),
		pathIDs:    make([][5]int32, 0, 2*nr+2*ng),
	}
	for i := range in.Gateways {
		gw := &in.Gateways[i]
		g.Gateways[Key{gw.Namespace, gw.Name}] = gw
	}
	routes := make([]*Route, 0, nr)
	for i := range in.HTTPRoutes {
		r := &in.HTTPRoutes[i]
		names := make([]*gwv1.SectionName, len(r.Spec.Rules))
		for j := range r.Spec.Rules {
			names[j] = r.Spec.Rules[j].Name
		}
		routes = append(routes, newRoute("HTTPRoute", r.Namespace, r.Name, r.Spec.ParentRefs, names))
	}
	for i := range in.GRPCRoutes {
		r := &in.GRPCRoutes[i]
		names := make([]*gwv1.SectionName, len(r.Spec.Rules))
		for j := range r.Spec.Rules {
			names[j] = r.Spec.Rules[j].Name
		}
		routes = append(routes, newRoute("GRPCRoute", r.Namespace, r.Name, r.Spec.ParentRefs, names))
	}
	slices.SortFunc(routes, routeCompare)

	attached := map[Key]map[string]bool{} // gateway → listeners with routes
	for _, r := range routes {
		rt := Target{Kind: r.Kind, Namespace: r.Key.Namespace, Name: r.Key.Name}
		g.Routes[rt] = r
		any := false
		for _, pr := range r.Parents {
			gw, listeners := g.parentListeners(r, pr, in.NamespaceLabels)
			for _, l := range listeners {
				any = true
				if attached[gw] == nil {
					attached[gw] = map[string]bool{}
				}
				attached[gw][l] = true
				for _, rule := range r.Rules {
					g.add(Path{Class: string(g.Gateways[gw].Spec.GatewayClassName), Gateway: gw, Listener: l, RouteKind: r.Kind, Route: r.Key, Rule: rule})
				}
			}
		}
		if !any {
			g.Unattached = append(g.Unattached, rt)
			g.unattached[rt] = true
		}
	}
	// Listeners without routes still have an effective policy of their own.
	keys := make([]Key, 0, len(g.Gateways))
	for k := range g.Gateways {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, Key.Compare)
	for _, k := range keys {
		gw := g.Gateways[k]
		for _, l := range gw.Spec.Listeners {
			if !attached[k][string(l.Name)] {
				g.add(Path{Class: string(gw.Spec.GatewayClassName), Gateway: k, Listener: string(l.Name)})
			}
		}
	}
	// Routes with no paths still exist as targets (no paths beneath them).
	for t := range g.Routes {
		g.id(t)
	}
	for k, gw := range g.Gateways {
		t := Target{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name}
		g.id(t)
		for _, l := range gw.Spec.Listeners {
			lt := t
			lt.Section = string(l.Name)
			g.id(lt)
		}
	}
	for _, gc := range in.GatewayClasses {
		g.id(Target{Kind: "GatewayClass", Name: gc.Name})
	}
	return g
}

// id returns the number of target t, numbering it if it is new.
func (g *Graph) id(t Target) int32 {
	id, ok := g.targetIDs[t]
	if !ok {
		id = int32(len(g.paths))
		g.targetIDs[t] = id
		g.paths = append(g.paths, nil)
	}
	return id
}

func newRoute(kind, ns, name string, parents []gwv1.ParentReference, ruleNames []*gwv1.SectionName) *Route {
	r := &Route{Kind: kind, Key: Key{ns, name}, Parents: parents}
	for i, n := range ruleNames {
		if n != nil && *n != "" {
			r.Rules = append(r.Rules, string(*n))
			continue
		}
		// Unnamed rules get a stable name from their index.
		gen := fmt.Sprintf("rule-%d", i)
		r.Rules = append(r.Rules, gen)
		r.Unnamed = append(r.Unnamed, gen)
	}
	if len(r.Rules) == 0 {
		r.Rules = []string{"rule-0"}
		r.Unnamed = []string{"rule-0"}
	}
	return r
}

func routeCompare(a, b *Route) int {
	if c := a.Key.Compare(b.Key); c != 0 {
		return c
	}
	return strings.Compare(a.Kind, b.Kind)
}

func (g *Graph) add(p Path) {
	i := len(g.Paths)
	g.Paths = append(g.Paths, p)
	ts, n := p.LevelTargets()
	var ids [5]int32
	for j := 0; j < n; j++ {
		t := ts[j].Target
		if t == g.last[j] {
			ids[j] = g.lastIDs[j]
		} else {
			ids[j] = g.id(t)
			g.last[j], g.lastIDs[j] = t, ids[j]
		}
		g.paths[ids[j]] = append(g.paths[ids[j]], i)
	}
	g.pathIDs = append(g.pathIDs, ids)
	k := placeKey{route: p.Route}
	if p.RouteKind == "" {
		k = placeKey{gateway: p.Gateway, listener: p.Listener}
	}
	place, ok := g.placeIDs[k]
	if !ok {
		place = int32(i)
		g.placeIDs[k] = place
	}
	g.places = append(g.places, place)
}

// IsUnattached reports whether t (a route, or a rule of one) belongs to a route attached to no
// Gateway listener.
func (g *Graph) IsUnattached(t Target) bool {
	return g.unattached[Target{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}]
}

// PlaceID numbers what path i is about to a reader of a warning: paths of the same route (by
// namespace and name, on any rule, listener or Gateway) share a number, and a path without a route
// has its listener's. The number is the index of the first such path.
func (g *Graph) PlaceID(i int) int32 { return g.places[i] }

// TargetID is the number of a known target (ok false for any other target). Numbers are dense, from
// 0 to TargetIDs()-1.
func (g *Graph) TargetID(t Target) (int32, bool) {
	id, ok := g.targetIDs[t]
	return id, ok
}

// TargetIDs is the count of numbered targets.
func (g *Graph) TargetIDs() int { return len(g.paths) }

// PathTargetIDs returns the numbers of the targets of path i, in the order of its LevelTargets
// (the first n entries count, n as LevelTargets returns it).
func (g *Graph) PathTargetIDs(i int) [5]int32 { return g.pathIDs[i] }

// parentListeners resolves one parentRef of a route to the listeners it attaches to.
func (g *Graph) parentListeners(r *Route, pr gwv1.ParentReference, nsLabels map[string]map[string]string) (Key, []string) {
	if pr.Group != nil && string(*pr.Group) != Group {
		return Key{}, nil
	}
	if pr.Kind != nil && string(*pr.Kind) != "Gateway" {
		return Key{}, nil
	}
	ns := r.Key.Namespace
	if pr.Namespace != nil && *pr.Namespace != "" {
		ns = string(*pr.Namespace)
	}
	key := Key{ns, string(pr.Name)}
	gw, ok := g.Gateways[key]
	if !ok {
		return key, nil
	}
	matches := func(sel *metav1.LabelSelector) bool {
		ls, err := metav1.LabelSelectorAsSelector(sel)
		return err == nil && ls.Matches(labels.Set(nsLabels[r.Key.Namespace]))
	}
	var out []string
	for _, l := range gw.Spec.Listeners {
		if SelectsListener(pr, l) && Admits(l, gw.Namespace, r.Kind, r.Key.Namespace, matches) {
			out = append(out, string(l.Name))
		}
	}
	return key, out
}

// SelectsListener reports whether a parentRef's sectionName and port (when set) select listener l.
func SelectsListener(pr gwv1.ParentReference, l gwv1.Listener) bool {
	if pr.SectionName != nil && *pr.SectionName != "" && *pr.SectionName != l.Name {
		return false
	}
	return pr.Port == nil || *pr.Port == l.Port
}

// Admits reports whether listener l of a Gateway in gwNS accepts a route of kind from routeNS
// (allowedRoutes kinds and namespaces). selectorMatches decides a Selector for routeNS: the graph
// matches namespace labels; a caller that does not know them may assume a match.
func Admits(l gwv1.Listener, gwNS, kind, routeNS string, selectorMatches func(*metav1.LabelSelector) bool) bool {
	return allowsKind(l, kind) && allowsNamespace(l, gwNS, routeNS, selectorMatches)
}

func allowsKind(l gwv1.Listener, kind string) bool {
	if l.AllowedRoutes != nil && len(l.AllowedRoutes.Kinds) > 0 {
		for _, k := range l.AllowedRoutes.Kinds {
			if (k.Group == nil || string(*k.Group) == Group) && string(k.Kind) == kind {
				return true
			}
		}
		return false
	}
	switch l.Protocol {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, "":
		return kind == "HTTPRoute" || kind == "GRPCRoute"
	}
	return false
}

func allowsNamespace(l gwv1.Listener, gwNS, routeNS string, selectorMatches func(*metav1.LabelSelector) bool) bool {
	from := gwv1.NamespacesFromSame
	var sel *metav1.LabelSelector
	if l.AllowedRoutes != nil && l.AllowedRoutes.Namespaces != nil {
		if l.AllowedRoutes.Namespaces.From != nil {
			from = *l.AllowedRoutes.Namespaces.From
		}
		sel = l.AllowedRoutes.Namespaces.Selector
	}
	switch from {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSelector:
		return sel != nil && selectorMatches(sel)
	default:
		return gwNS == routeNS
	}
}

// PathsFor returns the indexes of the paths beneath a target (nil when it reaches none).
func (g *Graph) PathsFor(t Target) []int {
	if id, ok := g.targetIDs[t]; ok {
		return g.paths[id]
	}
	return nil
}

// Exists reports whether a target is a known object (or a known listener / route rule).
func (g *Graph) Exists(t Target) bool {
	if _, ok := g.targetIDs[t]; ok {
		return true
	}
	if t.Section != "" && (t.Kind == "HTTPRoute" || t.Kind == "GRPCRoute") {
		if r, ok := g.Routes[Target{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}]; ok {
			for _, n := range r.Rules {
				if n == t.Section {
					return true
				}
			}
		}
	}
	return false
}
