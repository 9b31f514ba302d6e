package engine

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"sync"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/addrorder"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/internal/pmap"
)

// World is what the engine decides over: the topology graph, the HTTPRoutes and GRPCRoutes whole
// (their matches, for the overlap check; their backendRefs, for the Services a route sends to), the
// Services that exist, and the policies of every kind.
type World struct {
	Graph      *topology.Graph
	HTTPRoutes map[topology.Key]*gwv1.HTTPRoute
	GRPCRoutes map[topology.Key]*gwv1.GRPCRoute
	Services   map[topology.Key]bool
	// Grants are the ReferenceGrants that let routes send to Services of other namespaces.
	Grants   []Grant
	Policies []*Policy
	// Controllers are the GatewayClass controllers whose Gateways the kinds apply to (nil: any).
	Controllers []string
	// Versions are the NGINX Gateway Fabric version each kind's line predicts, by kind (a kind
	// without one: the newest, VersionMain).
	Versions map[string]string

	// idx holds the indexes built on first use (a world is shared by concurrent reviews).
	idx *indexes
}

// indexes are a world's policies by target and by reference, and the indexes of its routes.
type indexes struct {
	targetOnce sync.Once
	byTarget   pmap.Map[targetKey, []*Policy] // persistent: a step (WithPolicy) shares all but its change
	byRef      pmap.Map[key, *Policy]
	routes     *routeIndexes
}

// routeIndexes are what a world derives from its routes alone, shared by the worlds of the same
// routes (routesOnly, with): the routes by overlap key, and the Services they send to.
type routeIndexes struct {
	sharing    *sharing
	refOnce    sync.Once
	referenced map[topology.Key]bool
}

// sharing are a world's routes by overlap key, one index per NGINX Gateway Fabric version in use
// (built on first use; worlds of the same routes share it).
type sharing struct {
	mu sync.Mutex
	by map[string]map[string][]topology.Key
}

// The NGINX Gateway Fabric versions whose behaviour the engine predicts, oldest first. They differ in
// the overlap key of checkTargetRoutesForOverlap: the v2.6 releases format a listener's whole list of
// accepted hostnames into one key (so routes overlap only with the same list, in the same order);
// main, from #5605 (commit 8c6464f6a), makes one key per hostname. PayloadProcessor and
// ExternalLoadBalancer are kinds of main only.
const (
	Version26   = "2.6"
	VersionMain = "main"
)

// Versions are the versions, oldest first.
var Versions = []string{Version26, VersionMain}

// version is the version the kind's line predicts.
func (w *World) version(kind string) string {
	if v := w.Versions[kind]; v != "" {
		return v
	}
	return VersionMain
}

// targetKey is one target of a policy kind: conflicts are decided per kind and target.
type targetKey struct{ kind, ns, tkind, name string }

// Index prepares the world for use: its indexes are built once, on first use.
func (w *World) Index() *World {
	w.idx = &indexes{routes: &routeIndexes{sharing: &sharing{by: map[string]map[string][]topology.Key{}}}}
	return w
}

// sameRoutes is a world of w's routes, Services and settings without policies, sharing the
// indexes derived from the routes.
func (w *World) sameRoutes() *World {
	out := &World{Graph: w.Graph, HTTPRoutes: w.HTTPRoutes, GRPCRoutes: w.GRPCRoutes, Services: w.Services, Grants: w.Grants, Controllers: w.Controllers, Versions: w.Versions}
	out.idx = &indexes{routes: w.indexes().routes}
	return out
}

// Prepared is the world with its indexes built: the policies by target, the Services routes send
// to, and the routes by overlap key for each version its kinds' lines predict; a write then builds
// none.
func (w *World) Prepared() *World {
	w.targets()
	w.referenced()
	kinds := sortedKeys(w.Versions) // the kinds with a line; none in a world built without settings
	if len(kinds) == 0 {
		kinds = sortedKeys(Kinds)
	}
	done := map[string]bool{}
	for _, kind := range kinds {
		if v := w.version(kind); !done[v] {
			done[v] = true
			w.sharingOf(v)
		}
	}
	return w
}

// Find returns the policy of kind named ref, nil if the world has none.
func (w *World) Find(kind string, ref Ref) *Policy {
	w.targets()
	p, _ := w.idx.byRef.Get(key{kind, ref})
	return p
}

func (w *World) indexes() *indexes {
	if w.idx == nil {
		w.Index()
	}
	return w.idx
}

// sharingOf is the index of the world's routes by their overlap keys as version computes them.
func (w *World) sharingOf(version string) map[string][]topology.Key {
	sh := w.indexes().routes.sharing
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if idx, ok := sh.by[version]; ok {
		return idx
	}
	// Sized for a key per route (each route has one per hostname, port and path it serves): grown by
	// rehashing, a 10x world's index cost a pass over its table at each doubling.
	idx := make(map[string][]topology.Key, len(w.HTTPRoutes)+len(w.GRPCRoutes))
	lc := newListenerCache(w.Graph)
	// The routes in the address order of their objects (package addrorder): the walk reads the
	// routes' matches from the heap forward, not at a random place per route.
	for kind, ks := range map[string][]topology.Key{"HTTPRoute": addrorder.Keys(w.HTTPRoutes), "GRPCRoute": addrorder.Keys(w.GRPCRoutes)} {
		for _, k := range ks {
			for _, hp := range w.hostPortPaths(kind, k, version, lc) {
				idx[hp] = append(idx[hp], k)
			}
		}
	}
	for _, ks := range idx {
		sort.Slice(ks, func(i, j int) bool { return ks[i].String() < ks[j].String() })
	}
	sh.by[version] = idx
	return idx
}

// targets returns the index of the policies by target.
func (w *World) targets() *pmap.Map[targetKey, []*Policy] {
	idx := w.indexes()
	idx.targetOnce.Do(func() {
		byTarget := map[targetKey][]*Policy{}
		byRef := make(map[key]*Policy, len(w.Policies))
		for _, p := range w.Policies {
			byRef[key{p.Kind, p.Ref}] = p
			for _, t := range p.Targets {
				tk := targetKey{p.Kind, p.Ref.Namespace, t.Kind, t.Name}
				byTarget[tk] = append(byTarget[tk], p)
			}
		}
		idx.byTarget, idx.byRef = pmap.Of(byTarget), pmap.Of(byRef)
	})
	return &idx.byTarget
}

// The reasons of a status, as NGINX Gateway Fabric writes them (internal/controller/state/conditions).
const (
	ReasonAccepted       = "Accepted"
	ReasonTargetNotFound = "TargetNotFound"
	ReasonTargetConflict = "TargetConflict"
	ReasonConflicted     = "Conflicted"
)

// Status is what NGINX Gateway Fabric decides for one policy.
type Status struct {
	Reason  string
	Message string
	// Target is the index in the policy's Targets of the target at fault (TargetConflict), -1 else.
	Target int
	// By is the policy of precedence it conflicts with, and Fields the fields both set (Conflicted).
	By     *Policy
	Fields []string
}

// Accepted reports whether the policy takes effect.
func (s *Status) Accepted() bool { return s.Reason == ReasonAccepted }

// key names a policy of a kind.
type key struct {
	Kind string
	Ref  Ref
}

// Statuses are the statuses of policies, read with StatusOf.
type Statuses = map[key]*Status

// Decide returns the status of every policy of w, keyed by kind and reference.
func (w *World) Decide() map[key]*Status { return w.decide(w.Policies) }

// decide returns the status of pols, policies of w closed under sharing a target (Project's
// related): what conflicts decide for them depends on them alone.
func (w *World) decide(pols []*Policy) map[key]*Status {
	out := make(map[key]*Status, len(pols))
	var valid []*Policy
	for _, p := range pols {
		st := &Status{Reason: ReasonAccepted, Target: -1}
		out[key{p.Kind, p.Ref}] = st
		if !w.anyTargetExists(p) {
			if Kinds[p.Kind].missing != "" {
				// processExternalLoadBalancers writes Invalid for one whose Gateway is not in its graph.
				st.Reason, st.Message = Kinds[p.Kind].missing, "targetRef references a Gateway that does not exist: no Gateway of NGINX Gateway Fabric's GatewayClass has that name"
				continue
			}
			// processPolicies skips a policy none of whose targets is in its graph: no status is written.
			st.Reason, st.Message = ReasonTargetNotFound, "none of its targets is a Gateway of NGINX Gateway Fabric's GatewayClass, a route attached to one, or a Service such a route sends to: the policy has no effect, and NGINX Gateway Fabric writes no status for it"
			continue
		}
		if i, msg := w.overlap(p); msg != "" {
			st.Reason, st.Message, st.Target = ReasonTargetConflict, msg, i
			continue
		}
		valid = append(valid, p)
	}
	w.markConflicted(valid, out)
	return out
}

// StatusOf returns the status of p in statuses.
func StatusOf(statuses map[key]*Status, p *Policy) *Status { return statuses[key{p.Kind, p.Ref}] }

func (w *World) anyTargetExists(p *Policy) bool {
	for _, t := range p.Targets {
		if w.targetExists(p.Ref.Namespace, t) {
			return true
		}
	}
	return false
}

// targetExists reports whether target t of a policy of namespace ns is in NGINX Gateway Fabric's
// graph (exists.go).
func (w *World) targetExists(ns string, t Target) bool {
	k := topology.Key{Namespace: ns, Name: t.Name}
	switch t.Kind {
	case "Gateway":
		return w.servedGateway(k)
	case "Service":
		return w.referenced()[k]
	case "HTTPRoute", "GRPCRoute":
		return w.routeInGraph(t.Kind, k)
	}
	return false
}

// overlap is checkTargetRoutesForOverlap: the index of a targeted HTTPRoute or GRPCRoute that shares
// a gateway:hostname:port/path with a route (of either kind) the policy does not target, and the
// message NGINX Gateway Fabric writes; "" when none does. As processPolicies keys targetedRoutes, a
// route counts as targeted by its namespace/name alone, whatever its kind.
func (w *World) overlap(p *Policy) (int, string) {
	targeted := map[topology.Key]bool{}
	for _, t := range p.Targets {
		if routeKind(t.Kind) {
			targeted[topology.Key{Namespace: p.Ref.Namespace, Name: t.Name}] = true
		}
	}
	if len(targeted) == 0 {
		return -1, ""
	}
	version := w.version(p.Kind)
	idx := w.sharingOf(version)
	for i, t := range p.Targets {
		k := topology.Key{Namespace: p.Ref.Namespace, Name: t.Name}
		if !routeKind(t.Kind) {
			continue
		}
		for _, hp := range w.hostPortPaths(t.Kind, k, version, nil) {
			for _, other := range idx[hp] {
				if !targeted[other] {
					return i, fmt.Sprintf("Policy cannot be applied to target %q since another Route %q shares a namespace/gateway-name:hostname:port/path combination with this target (%s)", k.String(), other.String(), hp)
				}
			}
		}
	}
	return -1, ""
}

func routeKind(kind string) bool { return kind == "HTTPRoute" || kind == "GRPCRoute" }

// hostPortPaths are the overlap keys of an HTTPRoute or GRPCRoute as buildGatewayHostPortPaths of
// version makes them: per listener the route attaches to, per path of its matches, on main per
// hostname it accepts there (gateway:hostname:port/path), on 2.6 its accepted hostnames as one list
// (gateway:[h1 h2]:port/path, the %s of a []string); none for a route not in the world. lc, when
// not nil, holds the listeners met so far.
func (w *World) hostPortPaths(kind string, k topology.Key, version string, lc *listenerCache) []string {
	hostnames, paths := w.routeMatches(kind, k)
	var out []string
	for _, i := range w.Graph.ServedPaths(w.Graph.PathsFor(topology.Target{Kind: kind, Namespace: k.Namespace, Name: k.Name}), w.Controllers) {
		path := w.Graph.Paths[i]
		port, lh, ok := w.pathListener(i, lc)
		if !ok {
			continue
		}
		hosts := acceptedHostnames(lh, hostnames)
		if version == Version26 && len(hosts) > 0 {
			hosts = []string{fmt.Sprint(hosts)}
		}
		for _, h := range hosts {
			for _, p := range paths {
				out = append(out, fmt.Sprintf("%s:%s:%d%s", path.Gateway.String(), h, port, p))
			}
		}
	}
	sort.Strings(out)
	return out
}

// routeMatches are the hostnames of a route and the path values of its matches, as NGINX Gateway
// Fabric reads them: an HTTPRoute's path matches (the API server's default, PathPrefix /, where a
// rule or match has none); a GRPCRoute's matches converted to paths by ConvertGRPCMatches.
func (w *World) routeMatches(kind string, k topology.Key) ([]gwv1.Hostname, []string) {
	var paths []string
	switch kind {
	case "HTTPRoute":
		r := w.HTTPRoutes[k]
		if r == nil {
			return nil, nil
		}
		for _, rule := range r.Spec.Rules {
			paths = append(paths, httpPaths(rule.Matches)...)
		}
		return r.Spec.Hostnames, paths
	case "GRPCRoute":
		r := w.GRPCRoutes[k]
		if r == nil {
			return nil, nil
		}
		for _, rule := range r.Spec.Rules {
			paths = append(paths, grpcPaths(rule.Matches)...)
		}
		return r.Spec.Hostnames, paths
	}
	return nil, nil
}

func httpPaths(matches []gwv1.HTTPRouteMatch) []string {
	if len(matches) == 0 {
		return []string{"/"}
	}
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		p := "/"
		if m.Path != nil && m.Path.Value != nil {
			p = *m.Path.Value
		}
		out = append(out, p)
	}
	return out
}

// grpcInternalMirrorPrefix is the service prefix of the routes NGINX Gateway Fabric generates for
// request mirroring (http.InternalMirrorRoutePathPrefix): such a service is the path itself.
const grpcInternalMirrorPrefix = "/_ngf-internal-mirror"

// grpcPaths are the paths ConvertGRPCMatches (internal/controller/state/graph/grpcroute.go) makes of
// a GRPCRoute rule's matches: "/" for no match, "/<service>/<method>" for a match of both, else "/".
func grpcPaths(matches []gwv1.GRPCRouteMatch) []string {
	if len(matches) == 0 {
		return []string{"/"}
	}
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		p := "/"
		if m.Method != nil && m.Method.Service != nil {
			if strings.HasPrefix(*m.Method.Service, grpcInternalMirrorPrefix) {
				p = *m.Method.Service
			}
			if m.Method.Method != nil {
				p = "/" + *m.Method.Service + "/" + *m.Method.Method
			}
		}
		out = append(out, p)
	}
	return out
}

// listener returns the port and hostname of the listener of a path.
func (w *World) listener(p topology.Path) (int32, string, bool) {
	if p.ListenerSet.Name != "" {
		ls, ok := w.Graph.ListenerSet(p.ListenerSet)
		if !ok {
			return 0, "", false
		}
		for _, l := range ls.Spec.Listeners {
			if string(l.Name) == p.Listener {
				return int32(l.Port), hostname(l.Hostname), true
			}
		}
		return 0, "", false
	}
	gw, ok := w.Graph.Gateway(p.Gateway)
	if !ok {
		return 0, "", false
	}
	for _, l := range gw.Spec.Listeners {
		if string(l.Name) == p.Listener {
			return int32(l.Port), hostname(l.Hostname), true
		}
	}
	return 0, "", false
}

func hostname(h *gwv1.Hostname) string {
	if h == nil {
		return ""
	}
	return string(*h)
}

// acceptedHostnames are the hostnames a route accepts on a listener of hostname lh: the route's that
// the listener's matches (the more specific of the two), the listener's when the route has none, "*"
// when neither has one.
func acceptedHostnames(lh string, route []gwv1.Hostname) []string {
	if len(route) == 0 {
		if lh == "" {
			return []string{"*"}
		}
		return []string{lh}
	}
	var out []string
	for _, rh := range route {
		h := string(rh)
		switch {
		case lh == "" || lh == h:
			out = append(out, h)
		case strings.HasPrefix(lh, "*.") && strings.HasSuffix(h, lh[1:]):
			out = append(out, h)
		case strings.HasPrefix(h, "*.") && strings.HasSuffix(lh, h[1:]):
			out = append(out, lh)
		}
	}
	return out
}

// markConflicted is markConflictedPolicies: per kind and target, in precedence order, a policy that
// sets a field an earlier valid one sets is Conflicted. Only targets in the graph count: a policy's
// TargetRefs in NGINX Gateway Fabric hold those alone (processPolicies).
func (w *World) markConflicted(valid []*Policy, out map[key]*Status) {
	groups := map[targetKey][]*Policy{}
	var order []targetKey
	for _, p := range valid {
		for _, t := range p.Targets {
			if !w.targetExists(p.Ref.Namespace, t) {
				continue
			}
			k := targetKey{p.Kind, p.Ref.Namespace, t.Kind, t.Name}
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], p)
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i].less(order[j]) })
	for _, k := range order {
		list := groups[k]
		sort.SliceStable(list, func(i, j int) bool { return Less(list[i], list[j]) })
		for i := range list {
			if !out[key{list[i].Kind, list[i].Ref}].Accepted() {
				continue
			}
			for j := i + 1; j < len(list); j++ {
				sj := out[key{list[j].Kind, list[j].Ref}]
				if !sj.Accepted() {
					continue
				}
				if both := common(list[i], list[j]); len(both) > 0 {
					sj.Reason, sj.By, sj.Fields = ReasonConflicted, list[i], both
					sj.Message = fmt.Sprintf("Conflicts with another %s", list[j].Kind)
					if list[j].Kind == ExternalLoadBalancer {
						sj.Message = fmt.Sprintf("Gateway %q is already fronted by ExternalLoadBalancer %q", k.ns+"/"+k.name, list[i].Ref.Name)
					}
				}
			}
		}
	}
}

func (a targetKey) less(b targetKey) bool {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.ns, b.ns), cmp.Compare(a.tkind, b.tkind), cmp.Compare(a.name, b.name)) < 0
}

// common are the fields both policies set (lists never conflict); for a kind whose any two
// policies conflict, its fields whatever is set.
func common(a, b *Policy) []string {
	if Kinds[a.Kind].always {
		return Kinds[a.Kind].fields
	}
	var out []string
	for _, f := range a.SetFields() {
		if _, ok := b.Fields[f]; ok && !isList(a.Kind, f) {
			out = append(out, f)
		}
	}
	return out
}

func slicesContains(l []string, s string) bool { // l sorted
	i := sort.SearchStrings(l, s)
	return i < len(l) && l[i] == s
}
