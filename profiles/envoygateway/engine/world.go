package engine

import (
	"cmp"
	"maps"
	"slices"
	"sort"

	"github.com/benbjohnson/immutable"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// ListenerSet is a Gateway API ListenerSet as far as precedence goes (its listeners attach to a
// parent Gateway). The graph's ListenerSets are read from it; Input.ListenerSets adds others (for
// tests, or a graph made without them).
type ListenerSet struct {
	Key       topology.Key
	Gateway   topology.Key
	Listeners []string
}

// L4Route is a TCPRoute or UDPRoute the graph does not hold (the graph's own are read from it).
type L4Route struct {
	Kind    string // TCPRoute or UDPRoute
	Key     topology.Key
	Parents []gwv1.ParentReference
	Rules   []string
}

// Object is something a targetSelector may select: a Gateway, ListenerSet or route with its labels.
type Object struct {
	Kind   string
	Key    topology.Key
	Labels map[string]string
}

// ReferenceGrant lets policies of From reach objects of To in its namespace.
type ReferenceGrant struct {
	Namespace string
	Name      string // names it for a step (WithReferenceGrant)
	From      []GrantFrom
	To        []GrantTo
}

// GrantFrom is one ReferenceGrant spec.from entry.
type GrantFrom struct{ Group, Kind, Namespace string }

// GrantTo is one ReferenceGrant spec.to entry (Name empty: every object of the kind).
type GrantTo struct{ Group, Kind, Name string }

// Input is what a snapshot is built from.
type Input struct {
	// Graph gives the Gateways, the ListenerSets attached to them, their listeners and the routes
	// and rules attached to them. ListenerSets and L4Routes add those the graph does not know
	// (by key; a ListenerSet the graph knows but does not attach stays out).
	Graph        *topology.Graph
	ListenerSets []ListenerSet
	L4Routes     []L4Route
	// Objects carry labels for targetSelectors; NamespaceLabels for their namespaces.from: Selector.
	Objects         []Object
	NamespaceLabels map[string]map[string]string
	ReferenceGrants []ReferenceGrant
	Policies        []*Policy
	// Controllers are the GatewayClass controllerNames whose Gateways the policies apply to
	// (topology.Graph.Serves; nil: any). Paths through Gateways of other classes are left out: Envoy
	// Gateway translates only the Gateways of its own classes, and a route attached to Gateways of
	// several implementations has its policies applied on the paths through its own (the translator's
	// case securitypolicy-mixed-managed-unmanaged-route-parents).
	Controllers []string
}

// ControllerName is Envoy Gateway's GatewayClass controllerName, its kinds' default.
const ControllerName = "gateway.envoyproxy.io/gatewayclass-controller"

// Scope is what a policy attaches to: a Gateway, a ListenerSet, one of their listeners (Section),
// a route, or a route rule (Section).
type Scope struct {
	Kind, Namespace, Name, Section string
}

func (s Scope) String() string {
	out := s.Kind + " " + s.Namespace + "/" + s.Name
	if s.Section != "" {
		out += "#" + s.Section
	}
	return out
}

// Level of a scope on Envoy Gateway's ladder, broadest first.
type Level int

const (
	LevelGateway Level = iota
	LevelListenerSet
	LevelListener
	LevelRoute
	LevelRule
)

// Level places the scope on the ladder.
func (s Scope) Level() Level {
	switch {
	case s.Kind == "Gateway" && s.Section == "":
		return LevelGateway
	case s.Kind == "ListenerSet" && s.Section == "":
		return LevelListenerSet
	case s.Kind == "Gateway" || s.Kind == "ListenerSet":
		return LevelListener
	case s.Section == "":
		return LevelRoute
	}
	return LevelRule
}

// Path is one (gateway, listener, route, rule); ListenerSet is set when the listener belongs to a
// ListenerSet; RouteKind is empty for a listener's own path (ClientTrafficPolicy's unit).
type Path struct {
	Gateway     topology.Key
	ListenerSet topology.Key
	Listener    string
	RouteKind   string
	Route       topology.Key
	Rule        string
}

// Chain lists the scopes of a path, most specific first: rule, route, listener, ListenerSet,
// Gateway (the ladder of internal/gatewayapi/securitypolicy.go ProcessSecurityPolicies, steps 1-6).
func (p Path) Chain() []Scope {
	c, n := p.chain()
	return c[:n:n]
}

// chain is Chain without an allocation: the first n entries are the scopes.
func (p Path) chain() (c [5]Scope, n int) {
	if p.RouteKind != "" {
		c[0] = Scope{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name, Section: p.Rule}
		c[1] = Scope{Kind: p.RouteKind, Namespace: p.Route.Namespace, Name: p.Route.Name}
		n = 2
	}
	ps, m := p.parentArray()
	copy(c[n:], ps[:m])
	return c, n + m
}

// parents are the listener, ListenerSet and Gateway scopes of a path, most specific first. A
// ListenerSet listener's parents skip the Gateway's listener scopes: they are siblings
// (securitypolicy.go processSecurityPolicyForRoute, "intentionally skip Gateway listener policies").
func (p Path) parents() []Scope {
	c, n := p.parentArray()
	return c[:n:n]
}

func (p Path) parentArray() (c [3]Scope, n int) {
	gw := Scope{Kind: "Gateway", Namespace: p.Gateway.Namespace, Name: p.Gateway.Name}
	if p.ListenerSet.Name != "" {
		ls := Scope{Kind: "ListenerSet", Namespace: p.ListenerSet.Namespace, Name: p.ListenerSet.Name}
		lsl := ls
		lsl.Section = p.Listener
		return [3]Scope{lsl, ls, gw}, 3
	}
	gl := gw
	gl.Section = p.Listener
	return [3]Scope{gl, gw}, 2
}

// Snapshot indexes a world: paths, scopes and each kind's attachments in Envoy Gateway's order. Its
// indexes are persistent (maps.go): a step (WithPolicy, WithTopology) shares what it does not touch.
type Snapshot struct {
	paths     pathIndex // the paths of routes
	listeners pathIndex // one path per listener (RouteKind empty), for ClientTrafficPolicy
	exists    pmap[Scope, bool]
	objects   map[string]objectMap // by kind, in key order
	nsLabels  pmap[string, map[string]string]
	grants    pmap[string, []ReferenceGrant] // by namespace
	// attach lists each kind's policies per scope, oldest (the holder) first; resolved holds each
	// kind's policies with their resolutions, by ref.
	attach   map[string]pmap[Scope, []*Policy]
	resolved map[string]pmap[Ref, placedPolicy]
	// split counts policies on listener scopes (per Gateway or ListenerSet) and rule scopes (per
	// route), for display: a listener or rule is shown only where a policy splits it.
	split map[string]pmap[Scope, int]
	// named lists the policies whose targetRefs name an object (its scope without section), and
	// selecting the policies with targetSelectors: those a topology step resolves again.
	named     pmap[Scope, []policyKey]
	selecting pmap[policyKey, bool]
	// graph and controllers are what the paths were built from (Input), for the steps.
	graph       *topology.Graph
	controllers []string
	b           *building // while NewSnapshot builds
}

// policyKey names a stored policy.
type policyKey struct {
	Kind string
	Ref  Ref
}

// placedPolicy is a stored policy with where its targets land.
type placedPolicy struct {
	policy *Policy
	Resolution
}

// Resolution is where a policy's targets land.
type Resolution struct {
	Scopes []Scope
	// Missing are targetRefs that name nothing: Envoy Gateway writes no status for them.
	Missing []TargetRef
	// NoSection are targetRefs whose object exists without the sectionName they name: Envoy
	// Gateway writes Accepted=False (TargetNotFound) on the ancestor for them.
	NoSection []TargetRef
	// Ignored are targetSelectors matches in other namespaces without a ReferenceGrant.
	Ignored []Scope
}

// NewSnapshot builds the indexes. Inputs are not modified.
func NewSnapshot(in Input) *Snapshot {
	s := &Snapshot{
		nsLabels: pmapOf(maps.Clone(in.NamespaceLabels)),
		attach:   map[string]pmap[Scope, []*Policy]{}, resolved: map[string]pmap[Ref, placedPolicy]{},
		split: map[string]pmap[Scope, int]{}, graph: in.Graph, controllers: in.Controllers,
		b: newBuilding(),
	}
	s.buildPaths(in)
	s.paths, s.listeners, s.exists = frozen(s.b.paths, &s.b.under), frozen(s.b.listeners, &s.b.lunder), pmapOf(s.b.exists)
	s.b = nil
	s.objects = objectMaps(in.Objects)
	grants := map[string][]ReferenceGrant{}
	for _, g := range in.ReferenceGrants {
		grants[g.Namespace] = append(grants[g.Namespace], g)
	}
	s.grants = pmapOf(grants)
	policies := map[string][]*Policy{} // by kind, oldest first
	for _, p := range in.Policies {
		policies[p.Kind] = append(policies[p.Kind], p)
	}
	// Sized for a target per policy: grown by rehashing, a 10x world's maps cost a pass over each
	// table at each doubling.
	named, selecting := make(map[Scope][]policyKey, len(in.Policies)), map[policyKey]bool{}
	for kind, ps := range policies {
		sort.SliceStable(ps, func(i, j int) bool { return older(ps[i], ps[j]) })
		s.indexPolicies(kind, ps)
		for _, p := range ps {
			for _, sc := range namedBy(p) {
				named[sc] = append(named[sc], policyKey{kind, p.Ref})
			}
			if len(p.Selectors) > 0 {
				selecting[policyKey{kind, p.Ref}] = true
			}
		}
	}
	s.named, s.selecting = pmapOf(named), pmapOf(selecting)
	return s
}

// objectMaps is objs by kind, each kind's in key order (a selector's matches are listed in key
// order: the same for the same objects); of two with the same key, the later in objs stands. Each
// kind's objects are sorted before they fill its map: in the order they came (a replica's from its
// informers' maps, in no order), each insert was a descent to a random leaf of a tree as large as
// the kind, most of its nodes cache misses in a 10x world, where in key order each goes to the end,
// down the path the insert before it walked.
func objectMaps(objs []Object) map[string]objectMap {
	type indexed struct {
		o Object
		i int
	}
	byKind := map[string][]indexed{}
	for i, o := range objs {
		byKind[o.Kind] = append(byKind[o.Kind], indexed{o, i})
	}
	out := make(map[string]objectMap, len(byKind))
	for kind, xs := range byKind {
		slices.SortFunc(xs, func(a, b indexed) int { return cmp.Or(a.o.Key.Compare(b.o.Key), cmp.Compare(a.i, b.i)) })
		b := immutable.NewSortedMapBuilder[topology.Key, Object](keyComparer{})
		for _, x := range xs {
			b.Set(x.o.Key, x.o)
		}
		out[kind] = b.Map()
	}
	return out
}

// namedBy lists the objects p's targetRefs name, as scopes without section, each once.
func namedBy(p *Policy) []Scope {
	var out []Scope
	for _, t := range p.Targets {
		sc := Scope{Kind: t.Kind, Namespace: p.Ref.Namespace, Name: t.Name}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	return out
}

// indexPolicies resolves the policies ps of kind, oldest first, and indexes them.
func (s *Snapshot) indexPolicies(kind string, ps []*Policy) {
	attach, resolved, split := make(map[Scope][]*Policy, len(ps)), make(map[Ref]placedPolicy, len(ps)), map[Scope]int{}
	for _, p := range ps {
		r := s.Resolve(p)
		resolved[p.Ref] = placedPolicy{policy: p, Resolution: r}
		for _, sc := range r.Scopes {
			attach[sc] = append(attach[sc], p)
			if k, ok := splitKey(sc); ok {
				split[k]++
			}
		}
	}
	s.attach[kind], s.resolved[kind], s.split[kind] = pmapOf(attach), pmapOf(resolved), pmapOf(split)
}

// splitKey is the Gateway, ListenerSet or route that a listener or rule scope splits.
func splitKey(sc Scope) (Scope, bool) {
	if sc.Section == "" {
		return Scope{}, false
	}
	sc.Section = ""
	return sc, true
}

func (s *Snapshot) buildPaths(in Input) {
	g := in.Graph
	if g == nil {
		g = topology.Build(topology.Input{})
	}
	serves := func(k topology.Key) bool {
		gw, ok := g.Gateway(k)
		return ok && g.Serves(string(gw.Spec.GatewayClassName), in.Controllers)
	}
	s.b.reserve(len(g.Paths))
	for _, k := range g.GatewayKeys() {
		s.addGateway(g, k, in.Controllers)
	}
	// ListenerSets and L4 routes come from the graph; those of in.ListenerSets and in.L4Routes that
	// the graph does not know are added the engine's own way.
	lsByKey := map[topology.Key]*ListenerSet{}
	for _, k := range g.ListenerSetKeys() {
		s.addGraphListenerSet(g, k, serves)
	}
	for i := range in.ListenerSets {
		ls := &in.ListenerSets[i]
		if _, known := g.ListenerSet(ls.Key); known {
			continue
		}
		if !serves(ls.Gateway) {
			continue
		}
		lsByKey[ls.Key] = ls
		s.addListenerSet(ls)
	}
	for _, i := range g.PathIndexes() { // the live paths (an updated graph keeps removed ones)
		tp := g.Paths[i]
		if tp.RouteKind == "" || !g.Serves(tp.Class, in.Controllers) {
			continue
		}
		s.add(Path{Gateway: tp.Gateway, ListenerSet: tp.ListenerSet, Listener: tp.Listener, RouteKind: tp.RouteKind, Route: tp.Route, Rule: tp.Rule})
	}
	for _, t := range g.RouteTargets() {
		r, _ := g.Route(t)
		s.markRoute(r.Kind, r.Key, r.Rules)
		for _, pr := range r.Parents {
			if pr.Kind == nil || string(*pr.Kind) != "ListenerSet" {
				continue
			}
			s.viaListenerSet(lsByKey, r.Kind, r.Key, r.Rules, pr)
		}
	}
	for i := range in.L4Routes {
		s.addL4Route(g, &in.L4Routes[i], lsByKey, serves)
	}
}

// addL4Route adds the scopes and paths of an L4 route of the input that the graph does not know.
func (s *Snapshot) addL4Route(g *topology.Graph, r *L4Route, lsByKey map[topology.Key]*ListenerSet, serves func(topology.Key) bool) {
	if _, known := g.Route(topology.Target{Kind: r.Kind, Namespace: r.Key.Namespace, Name: r.Key.Name}); known {
		return
	}
	s.markRoute(r.Kind, r.Key, r.Rules)
	for _, pr := range r.Parents {
		if pr.Kind != nil && string(*pr.Kind) == "ListenerSet" {
			s.viaListenerSet(lsByKey, r.Kind, r.Key, r.Rules, pr)
			continue
		}
		ns := r.Key.Namespace
		if pr.Namespace != nil {
			ns = string(*pr.Namespace)
		}
		gk := topology.Key{Namespace: ns, Name: string(pr.Name)}
		gw, ok := g.Gateway(gk)
		if !ok || !serves(gk) {
			continue
		}
		for _, l := range gw.Spec.Listeners {
			if !topology.SelectsListener(pr, l) {
				continue
			}
			for _, rule := range r.Rules {
				s.add(Path{Gateway: gk, Listener: string(l.Name), RouteKind: r.Kind, Route: r.Key, Rule: rule})
			}
		}
	}
}

// addGateway adds the scope of Gateway k of g, and those of its listeners and their paths when its
// class is of the controllers.
func (s *Snapshot) addGateway(g *topology.Graph, k topology.Key, controllers []string) {
	gw := Scope{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name}
	obj, ok := g.Gateway(k)
	if !ok {
		return
	}
	s.b.exists[gw] = true
	if !g.Serves(string(obj.Spec.GatewayClassName), controllers) {
		return
	}
	for _, l := range obj.Spec.Listeners {
		sc := gw
		sc.Section = string(l.Name)
		s.b.exists[sc] = true
		s.addListener(Path{Gateway: k, Listener: string(l.Name)})
	}
}

// addGraphListenerSet adds ListenerSet k of g when it is attached to a Gateway that serves; it
// returns the Gateway it is attached to, if any.
func (s *Snapshot) addGraphListenerSet(g *topology.Graph, k topology.Key, serves func(topology.Key) bool) (topology.Key, bool) {
	obj, gk, ok := g.AttachedListenerSet(k)
	if !ok || !serves(gk) {
		return topology.Key{}, false
	}
	ls := &ListenerSet{Key: k, Gateway: gk}
	for _, l := range obj.Spec.Listeners {
		ls.Listeners = append(ls.Listeners, string(l.Name))
	}
	s.addListenerSet(ls)
	return gk, true
}

// addListenerSet adds the scopes and listener paths of an attached ListenerSet.
func (s *Snapshot) addListenerSet(ls *ListenerSet) {
	sc := Scope{Kind: "ListenerSet", Namespace: ls.Key.Namespace, Name: ls.Key.Name}
	s.b.exists[sc] = true
	for _, l := range ls.Listeners {
		lsc := sc
		lsc.Section = l
		s.b.exists[lsc] = true
		s.addListener(Path{Gateway: ls.Gateway, ListenerSet: ls.Key, Listener: l})
	}
}

func (s *Snapshot) markRoute(kind string, k topology.Key, rules []string) {
	sc := Scope{Kind: kind, Namespace: k.Namespace, Name: k.Name}
	s.b.exists[sc] = true
	for _, rule := range rules {
		sc.Section = rule
		s.b.exists[sc] = true
	}
}

func (s *Snapshot) viaListenerSet(lsByKey map[topology.Key]*ListenerSet, kind string, k topology.Key, rules []string, pr gwv1.ParentReference) {
	ns := k.Namespace
	if pr.Namespace != nil {
		ns = string(*pr.Namespace)
	}
	ls, ok := lsByKey[topology.Key{Namespace: ns, Name: string(pr.Name)}]
	if !ok {
		return
	}
	for _, l := range ls.Listeners {
		if pr.SectionName != nil && string(*pr.SectionName) != l {
			continue
		}
		for _, rule := range rules {
			s.add(Path{Gateway: ls.Gateway, ListenerSet: ls.Key, Listener: l, RouteKind: kind, Route: k, Rule: rule})
		}
	}
}

func (s *Snapshot) add(p Path) { s.b.add(p) }

func (s *Snapshot) addListener(p Path) { s.b.addListener(p) }

// Exists reports whether a scope names something in the world.
func (s *Snapshot) Exists(sc Scope) bool { return s.exists.get(sc) }

// Held lists the scopes that policies of kind attach to (the holder and any it holds off),
// sorted; Envoy Gateway's status relations are drawn between them.
func (s *Snapshot) Held(kind string) []Scope {
	at := s.attach[kind]
	out := make([]Scope, 0, at.sizeHint())
	for sc, ps := range at.all() {
		if len(ps) > 0 {
			out = append(out, sc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return scopeLess(out[i], out[j]) })
	return out
}
