package engine

import (
	"maps"
	"reflect"
	"slices"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// WithGateway returns the topology with the Gateway keyed as key ("namespace/name") set to gw
// (removed when gw is nil), and the Gateways whose Backends changed (sorted; the keys the Grants
// use). Only the routes with a parentRef to the Gateway are looked at again. t stays valid and
// unchanged; gw is kept: do not modify it afterwards.
func (t *Topology) WithGateway(key string, gw *gatewayv1.Gateway) (*Topology, []string) {
	old, had := t.gws.Get(key)
	n := t.next()
	if gw == nil {
		if !had {
			return t, nil
		}
		n.gws = *n.gws.Delete(key)
	} else {
		if had && old.Namespace == gw.Namespace && reflect.DeepEqual(old.Spec.Listeners, gw.Spec.Listeners) {
			return t, nil // a status or metadata change: nothing the topology reads
		}
		n.gws = *n.gws.Set(key, gw)
	}
	d := delta{}
	routes := valueAt(&t.byParent, key)
	for rk := range entries(&routes) {
		n.relink(d, rk, valueAt(&n.routes, rk))
	}
	return n, n.apply(d)
}

// WithHTTPRoute returns the topology with the HTTPRoute keyed as key set to r (removed when r is
// nil), and the Gateways whose Backends changed (sorted). It costs what the route's old and new
// parentRefs and backendRefs touch. t stays valid and unchanged; r is read and its parentRefs kept:
// do not modify it afterwards.
func (t *Topology) WithHTTPRoute(key string, r *gatewayv1.HTTPRoute) (*Topology, []string) {
	old := valueAt(&t.routes, key)
	var e *routeEntry
	if r != nil {
		e = newRouteEntry(r, t.settings.withDefaults())
	}
	if old == nil && e == nil {
		return t, nil
	}
	if old != nil && e != nil && old.namespace == e.namespace && slices.Equal(old.backends, e.backends) && reflect.DeepEqual(old.parents, e.parents) {
		return t, nil // a status or metadata change, or rules to the same Backends
	}
	n := t.next()
	d := delta{}
	if old != nil {
		d.add(old.linked, old.backends, -1)
		n.unindex(key, old)
		n.routes = *n.routes.Delete(key)
	}
	if e != nil {
		e.linked = n.linkedOf(e)
		d.add(e.linked, e.backends, 1)
		n.index(key, e)
		n.routes = *n.routes.Set(key, e)
	}
	return n, n.apply(d)
}

// WithNamespace returns the topology with the namespace name labelled labels (nil when it is deleted;
// a selector matches a deleted namespace as one without labels), and the Gateways whose Backends
// changed (sorted). Only the routes of the namespace are looked at
// again, against the allowedRoutes selectors of their Gateways. On a topology built without the
// labels (TopologyOf's nsLabels nil, or the zero value), the labels become known and every route is
// looked at again. t stays valid and unchanged; labels is kept: do not modify it afterwards.
func (t *Topology) WithNamespace(name string, labels map[string]string) (*Topology, []string) {
	if old, had := t.ns.Get(name); t.nsKnown && had == (labels != nil) && maps.Equal(old, labels) {
		return t, nil
	}
	n := t.next()
	if labels == nil {
		n.ns = *n.ns.Delete(name)
	} else {
		n.ns = *n.ns.Set(name, labels)
	}
	d := delta{}
	if t.nsKnown {
		routes := valueAt(&t.byNS, name)
		for rk := range entries(&routes) {
			n.relink(d, rk, valueAt(&n.routes, rk))
		}
	} else {
		n.nsKnown = true
		routes := n.routes // relink replaces entries of n.routes
		for rk := range entries(&routes) {
			n.relink(d, rk, valueAt(&n.routes, rk))
		}
	}
	return n, n.apply(d)
}

// next is a copy of t to change.
func (t *Topology) next() *Topology {
	n := *t
	n.settings = t.settings.withDefaults()
	return &n
}

// relink looks again at which Gateways admit the route keyed as rk (e), and records in d how its
// links change.
func (t *Topology) relink(d delta, rk string, e *routeEntry) {
	if e == nil {
		return
	}
	linked := t.linkedOf(e)
	if slices.Equal(linked, e.linked) {
		return
	}
	d.add(e.linked, e.backends, -1)
	d.add(linked, e.backends, 1)
	ne := *e
	ne.linked = linked
	t.routes = *t.routes.Set(rk, &ne)
}

// delta is how many routes more (or fewer) link each (gateway, backend).
type delta map[[2]string]int32

func (d delta) add(gateways, backends []string, by int32) {
	for _, gw := range gateways {
		for _, b := range backends {
			d[[2]string{gw, b}] += by
		}
	}
}

// apply brings t's links forward by d and returns the Gateways whose Backends changed, sorted.
func (t *Topology) apply(d delta) []string {
	added, removed := map[string][]string{}, map[string]map[string]bool{}   // gateway → backends
	fadded, fremoved := map[string][]string{}, map[string]map[string]bool{} // backend → gateways
	for p, by := range d {
		if by == 0 {
			continue
		}
		k := pairKey(p[0], p[1])
		was := valueAt(&t.links, k)
		now := was + by
		if now <= 0 {
			t.links = *t.links.Delete(k)
		} else {
			t.links = *t.links.Set(k, now)
		}
		switch {
		case was <= 0 && now > 0:
			added[p[0]] = append(added[p[0]], p[1])
			fadded[p[1]] = append(fadded[p[1]], p[0])
		case was > 0 && now <= 0:
			mark(removed, p[0], p[1])
			mark(fremoved, p[1], p[0])
		}
	}
	t.backends = merge(t.backends, added, removed)
	t.gateways = merge(t.gateways, fadded, fremoved)
	changed := make([]string, 0, len(added)+len(removed))
	for gw := range added {
		changed = append(changed, gw)
	}
	for gw := range removed {
		changed = append(changed, gw)
	}
	if len(changed) == 0 {
		return nil
	}
	return compact(changed)
}

func mark(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

// merge returns m with, for each key, the values of added put in and those of removed taken out of
// its sorted list (which holds none of added and all of removed).
func merge(m keyed[[]string], added map[string][]string, removed map[string]map[string]bool) keyed[[]string] {
	keys := make([]string, 0, len(added)+len(removed))
	for k := range added {
		keys = append(keys, k)
	}
	for k := range removed {
		if _, ok := added[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		old := valueAt(&m, k)
		out := make([]string, 0, len(old)+len(added[k])-len(removed[k]))
		for _, v := range old {
			if !removed[k][v] {
				out = append(out, v)
			}
		}
		out = append(out, added[k]...)
		slices.Sort(out)
		if len(out) == 0 {
			m = *m.Delete(k)
		} else {
			m = *m.Set(k, out)
		}
	}
	return m
}
