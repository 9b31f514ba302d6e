package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Topology is the part of the Gateway API graph the access profile needs: which Backends sit behind
// which Gateways (Gateway ← HTTPRoute parentRefs, HTTPRoute backendRefs → Backend). Objects are named
// "namespace/name". The zero value is empty and ready to use. A Topology built by TopologyOf keeps
// the objects it was built from and indexes them, so that WithGateway, WithHTTPRoute and
// WithNamespace return the next version at the cost of what the object touches; versions share
// what did not change and never change once built (Link aside), so readers need no lock.
type Topology struct {
	backends keyed[[]string] // gateway → backends behind it, sorted, unique
	gateways keyed[[]string] // backend → gateways in front of it, sorted, unique
	links    keyed[int32]    // gateway+"\x00"+backend → the routes linking them (a Link counts as one)

	// What the links are derived from.
	settings Settings                  // with defaults, or zero (then the defaults apply)
	nsKnown  bool                      // false: namespace labels are not known, every selector matches
	gws      keyed[*gatewayv1.Gateway] // "namespace/name" → Gateway
	routes   keyed[*routeEntry]        // "namespace/name" → HTTPRoute with Backends and Gateway parents
	byParent keyed[keyed[struct{}]]    // gateway → the routes with a parentRef to it
	byNS     keyed[keyed[struct{}]]    // namespace → the routes in it
	ns       keyed[map[string]string]  // namespace → its labels
}

// routeEntry is what the topology needs of one HTTPRoute.
type routeEntry struct {
	namespace string
	parents   []routeParent // its parentRefs to Gateways
	backends  []string      // its backendRefs to Backends of the configured kind, sorted, unique
	linked    []string      // the Gateways that admit it now, sorted, unique
}

// routeParent is one parentRef to a Gateway, with the Gateway's key.
type routeParent struct {
	gateway string
	ref     gatewayv1.ParentReference
}

// Link records that backend is reachable through gateway. It modifies t: it is for building a
// topology by hand (tests, tools), not for one that others read. A link made by Link stays whatever
// With* does.
func (t *Topology) Link(gateway, backend string) {
	k := pairKey(gateway, backend)
	if _, ok := t.links.Get(k); ok {
		return
	}
	t.links = *t.links.Set(k, 1)
	t.backends = *t.backends.Set(gateway, insertCopy(valueAt(&t.backends, gateway), backend))
	t.gateways = *t.gateways.Set(backend, insertCopy(valueAt(&t.gateways, backend), gateway))
}

// BackendsBehind returns the backends reachable through gateway, sorted. The result is shared: read it only.
func (t *Topology) BackendsBehind(gateway string) []string { return valueAt(&t.backends, gateway) }

// GatewaysInFront returns the gateways through which backend is reachable, sorted. The result is
// shared: read it only.
func (t *Topology) GatewaysInFront(backend string) []string { return valueAt(&t.gateways, backend) }

func pairKey(gateway, backend string) string { return gateway + "\x00" + backend }

// insertCopy returns a copy of the sorted s with v inserted (s itself when v is in it).
func insertCopy(s []string, v string) []string {
	i, found := slices.BinarySearch(s, v)
	if found {
		return s
	}
	out := make([]string, len(s)+1)
	copy(out, s[:i])
	out[i] = v
	copy(out[i+1:], s[i:])
	return out
}

// NewTopology builds the topology from Gateways and HTTPRoutes (other objects are ignored). A route
// attaches to a Gateway through a parentRef when a listener of the Gateway (the one named by
// sectionName, if any) admits routes of its namespace (allowedRoutes.namespaces: Same by default,
// All, or Selector, assumed to match since namespace labels are not known offline) and of kind
// HTTPRoute. A parentRef to a Gateway not among objs attaches as if the Gateway admitted it.
// Cross-namespace backendRefs are taken as granted (ReferenceGrants are not modelled). Objects that
// cannot be decoded are skipped and reported in the error.
func NewTopology(objs []*unstructured.Unstructured, s Settings) (Topology, error) {
	var errs []error
	gateways := map[string]*gatewayv1.Gateway{}
	var routes []*gatewayv1.HTTPRoute
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		if gvk.Group != GatewayGroup {
			continue
		}
		switch gvk.Kind {
		case "Gateway":
			var gw gatewayv1.Gateway
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &gw); err != nil {
				errs = append(errs, fmt.Errorf("Gateway %s/%s: %w", u.GetNamespace(), u.GetName(), err))
				continue
			}
			gateways[gw.Namespace+"/"+gw.Name] = &gw
		case "HTTPRoute":
			var r gatewayv1.HTTPRoute
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r); err != nil {
				errs = append(errs, fmt.Errorf("HTTPRoute %s/%s: %w", u.GetNamespace(), u.GetName(), err))
				continue
			}
			routes = append(routes, &r)
		}
	}
	gws := make([]*gatewayv1.Gateway, 0, len(gateways))
	for _, gw := range gateways {
		gws = append(gws, gw)
	}
	return TopologyOf(gws, routes, nil, s), errors.Join(errs...)
}

// TopologyOf builds the topology from typed Gateways and HTTPRoutes, by NewTopology's rules.
// nsLabels holds the labels of the namespaces, for allowedRoutes selectors; nil (offline, where
// they are not known) takes every selector as matching. The objects are only read, and kept: do not
// modify them afterwards. Objects are keyed by namespace/name; of two with one key, With* replaces
// the last.
func TopologyOf(gateways []*gatewayv1.Gateway, routes []*gatewayv1.HTTPRoute, nsLabels map[string]map[string]string, s Settings) Topology {
	t := Topology{settings: s.withDefaults(), nsKnown: nsLabels != nil}
	gws := make(map[string]*gatewayv1.Gateway, len(gateways))
	for _, gw := range gateways {
		gws[gw.Namespace+"/"+gw.Name] = gw
	}
	t.gws, t.ns = keyedOf(gws), keyedOf(maps.Clone(nsLabels))
	entries := make(map[string]*routeEntry, len(routes))
	// Sized for a route per Backend and Gateway link: grown by rehashing, they cost a 10x world's
	// build a pass over each table at each doubling.
	byParent, byNS := make(map[string][]string, len(gateways)), map[string][]string{}
	backends, fronts, links := make(map[string][]string, len(gateways)), make(map[string][]string, len(routes)), make(map[string]int32, len(routes))
	memo := map[admission]bool{}
	for _, r := range routes {
		e := newRouteEntry(r, t.settings)
		if e == nil {
			continue
		}
		e.linked = t.linkedIn(e, memo)
		key := r.Namespace + "/" + r.Name
		entries[key] = e
		for _, p := range e.parents {
			byParent[p.gateway] = append(byParent[p.gateway], key)
		}
		byNS[e.namespace] = append(byNS[e.namespace], key)
		for _, gw := range e.linked {
			for _, b := range e.backends {
				k := pairKey(gw, b)
				if links[k] == 0 {
					backends[gw] = append(backends[gw], b)
					fronts[b] = append(fronts[b], gw)
				}
				links[k]++
			}
		}
	}
	t.routes, t.links = keyedOf(entries), keyedOf(links)
	// Lists until here, not sets: a namespace's set of a 10x world's routes grew by rehashing.
	t.byParent, t.byNS = setsOf(byParent), setsOf(byNS)
	for _, l := range backends {
		slices.Sort(l)
	}
	for _, l := range fronts {
		slices.Sort(l)
	}
	t.backends, t.gateways = keyedOf(backends), keyedOf(fronts)
	return t
}

// setsOf is m, each list a set (a key listed twice is there once), as persistent maps.
func setsOf(m map[string][]string) keyed[keyed[struct{}]] {
	out := make(map[string]keyed[struct{}], len(m))
	for k, l := range m {
		set := make(map[string]struct{}, len(l))
		for _, x := range l {
			set[x] = struct{}{}
		}
		out[k] = keyedOf(set)
	}
	return keyedOf(out)
}

// newRouteEntry is what the topology needs of r, nil when r links nothing (no Backend of s's kind,
// or no parentRef to a Gateway).
func newRouteEntry(r *gatewayv1.HTTPRoute, s Settings) *routeEntry {
	var backends []string
	for _, rule := range r.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			if string(deref(ref.Group, "")) != s.BackendGroup || string(deref(ref.Kind, "Service")) != s.BackendKind {
				continue
			}
			backends = append(backends, string(deref(ref.Namespace, gatewayv1.Namespace(r.Namespace)))+"/"+string(ref.Name))
		}
	}
	if len(backends) == 0 {
		return nil
	}
	e := &routeEntry{namespace: r.Namespace, backends: compact(backends), parents: make([]routeParent, 0, len(r.Spec.ParentRefs))}
	for _, pr := range r.Spec.ParentRefs {
		if deref(pr.Group, GatewayGroup) != GatewayGroup || deref(pr.Kind, GatewayKind) != GatewayKind {
			continue
		}
		key := string(deref(pr.Namespace, gatewayv1.Namespace(r.Namespace))) + "/" + string(pr.Name)
		e.parents = append(e.parents, routeParent{gateway: key, ref: pr})
	}
	if len(e.parents) == 0 {
		return nil
	}
	return e
}

// linkedOf returns the Gateways of e's parentRefs that admit it: a Gateway not known admits it.
func (t *Topology) linkedOf(e *routeEntry) []string { return t.linkedIn(e, nil) }

// admission is what admits reads of a parentRef to a Gateway and its route: which Gateway, which of
// its listeners (the parentRef's sectionName and port; port -1: none), and the route's namespace.
type admission struct {
	gateway, section, namespace string
	port                        int32
}

// linkedIn is linkedOf with memo (nil: none) holding the answers for the admissions met so far:
// routes met in no order, reading each one's Gateway and its listeners missed the caches at 10x.
func (t *Topology) linkedIn(e *routeEntry, memo map[admission]bool) []string {
	var out []string
	for _, p := range e.parents {
		if !t.admitted(p, e.namespace, memo) {
			continue
		}
		out = append(out, p.gateway)
	}
	return compact(out)
}

// admitted reports whether the Gateway of p admits a route of namespace through p (a Gateway not
// known does), through memo (nil: none).
func (t *Topology) admitted(p routeParent, namespace string, memo map[admission]bool) bool {
	a := admission{gateway: p.gateway, section: string(deref(p.ref.SectionName, "")), namespace: namespace, port: -1}
	if p.ref.Port != nil {
		a.port = int32(*p.ref.Port)
	}
	if ok, found := memo[a]; found {
		return ok
	}
	gw, known := t.gws.Get(p.gateway)
	ok := !known || admits(gw, p.ref, namespace, valueAt(&t.ns, namespace), t.nsKnown)
	if memo != nil {
		memo[a] = ok
	}
	return ok
}

// index adds the route keyed as key (e, nil for none) to the indexes by parent and by namespace.
func (t *Topology) index(key string, e *routeEntry) {
	if e == nil {
		return
	}
	for i, p := range e.parents {
		if i > 0 && slices.ContainsFunc(e.parents[:i], func(q routeParent) bool { return q.gateway == p.gateway }) {
			continue
		}
		t.byParent = addTo(t.byParent, p.gateway, key)
	}
	t.byNS = addTo(t.byNS, e.namespace, key)
}

// unindex takes the route keyed as key (e, nil for none) out of the indexes.
func (t *Topology) unindex(key string, e *routeEntry) {
	if e == nil {
		return
	}
	for _, p := range e.parents {
		t.byParent = removeFrom(t.byParent, p.gateway, key)
	}
	t.byNS = removeFrom(t.byNS, e.namespace, key)
}

func addTo(m keyed[keyed[struct{}]], outer, inner string) keyed[keyed[struct{}]] {
	s := valueAt(&m, outer)
	return *m.Set(outer, *s.Set(inner, struct{}{}))
}

func removeFrom(m keyed[keyed[struct{}]], outer, inner string) keyed[keyed[struct{}]] {
	s, ok := m.Get(outer)
	if !ok {
		return m
	}
	if _, ok := s.Get(inner); !ok {
		return m
	}
	if s = *s.Delete(inner); s.Len() == 0 {
		return *m.Delete(outer)
	}
	return *m.Set(outer, s)
}

// admits reports whether some listener of gw selected by pr admits an HTTPRoute from namespace
// (labelled nsLabels), by the topology package's rules; with the labels not known, a Selector is
// taken as matching.
func admits(gw *gatewayv1.Gateway, pr gatewayv1.ParentReference, namespace string, nsLabels map[string]string, known bool) bool {
	matches := func(sel *metav1.LabelSelector) bool {
		if !known {
			return true
		}
		ls, err := metav1.LabelSelectorAsSelector(sel)
		return err == nil && ls.Matches(labels.Set(nsLabels))
	}
	for _, l := range gw.Spec.Listeners {
		if topology.SelectsListener(pr, l) && topology.Admits(l, gw.Namespace, "HTTPRoute", namespace, matches) {
			return true
		}
	}
	return false
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
