package topology

import (
	"maps"
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The updates of a graph: each returns the next version with one object created, changed or
// deleted, in time proportional to what the object touches (a route: its own paths and the lists
// of the targets above them; a Gateway: the routes whose parentRefs name it; a namespace: its
// routes). The version updated stays as it was. What an update gives is what Build gives for the
// objects after it (the same paths in the same order, the same answers to every question), except
// that the numbers of paths differ.

// SetGateway returns g with Gateway gw created or replaced.
func (g *Graph) SetGateway(gw *gwv1.Gateway) *Graph {
	e := newEditor(g)
	k := Key{gw.Namespace, gw.Name}
	e.gateways.set(k, gw)
	return e.gatewayChanged(k)
}

// DeleteGateway returns g without Gateway k.
func (g *Graph) DeleteGateway(k Key) *Graph {
	if _, ok := g.gateways.get(k); !ok {
		return g
	}
	e := newEditor(g)
	e.gateways.del(k)
	return e.gatewayChanged(k)
}

// gatewayChanged re-attaches the routes that name Gateway k or a ListenerSet that names it, and
// redoes their listeners' paths.
func (e *editor) gatewayChanged(k Key) *Graph {
	e.reattach(Target{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name})
	e.gws[k] = true
	lss, _ := e.gwLsets.get(k)
	for _, l := range lss {
		e.listenerSetChanged(l)
	}
	return e.finish()
}

// reattach re-attaches the routes whose parentRefs name parent.
func (e *editor) reattach(parent Target) {
	refs, _ := e.refs.get(parent)
	for _, id := range refs {
		e.reattachRoute(e.g.targets[id])
	}
}

// reattachRoute re-attaches route rt, once per edit (its lists of paths are written at flush: a
// second attach would see the paths the first one replaced).
func (e *editor) reattachRoute(rt Target) {
	if e.redone[rt] {
		return
	}
	if r, ok := e.routeOf(rt); ok {
		e.redone[rt] = true
		e.attach(r, r)
	}
}

// listenerSetChanged re-attaches the routes that name ListenerSet k and marks its listeners.
func (e *editor) listenerSetChanged(k Key) {
	e.reattach(Target{Kind: "ListenerSet", Namespace: k.Namespace, Name: k.Name})
	e.lss[k] = true
}

// SetListenerSet returns g with ListenerSet ls created or replaced.
func (g *Graph) SetListenerSet(ls *gwv1.ListenerSet) *Graph {
	e := newEditor(g)
	k := Key{ls.Namespace, ls.Name}
	old, had := e.lsets.get(k)
	if !had {
		l, _ := e.nsLsets.get(k.Namespace)
		e.nsLsets.set(k.Namespace, append(slices.Clip(l), k))
	}
	e.reparent(k, old, ls)
	e.lsets.set(k, ls)
	e.listenerSetChanged(k)
	return e.finish()
}

// DeleteListenerSet returns g without ListenerSet k.
func (g *Graph) DeleteListenerSet(k Key) *Graph {
	old, had := g.lsets.get(k)
	if !had {
		return g
	}
	e := newEditor(g)
	e.reparent(k, old, nil)
	if l, _ := e.nsLsets.get(k.Namespace); len(l) <= 1 {
		e.nsLsets.del(k.Namespace)
	} else {
		e.nsLsets.set(k.Namespace, without(l, k))
	}
	e.lsets.del(k)
	e.listenerSetChanged(k)
	return e.finish()
}

// reparent moves ListenerSet k in the index of Gateways, from old's parent to cur's (nil: none).
func (e *editor) reparent(k Key, old, cur *gwv1.ListenerSet) {
	var was, is Key
	var hadWas, hasIs bool
	if old != nil {
		was, hadWas = lsParentKey(old)
	}
	if cur != nil {
		is, hasIs = lsParentKey(cur)
	}
	if hadWas == hasIs && was == is {
		return
	}
	if hadWas {
		if l, _ := e.gwLsets.get(was); len(without(l, k)) == 0 {
			e.gwLsets.del(was)
		} else {
			e.gwLsets.set(was, without(l, k))
		}
	}
	if hasIs {
		l, _ := e.gwLsets.get(is)
		e.gwLsets.set(is, append(slices.Clip(l), k))
	}
}

// SetHTTPRoute returns g with HTTPRoute r created or replaced.
func (g *Graph) SetHTTPRoute(r *gwv1.HTTPRoute) *Graph { return g.setRoute(HTTPRouteOf(r)) }

// SetGRPCRoute returns g with GRPCRoute r created or replaced.
func (g *Graph) SetGRPCRoute(r *gwv1.GRPCRoute) *Graph { return g.setRoute(GRPCRouteOf(r)) }

// SetTLSRoute returns g with TLSRoute r created or replaced.
func (g *Graph) SetTLSRoute(r *gwv1.TLSRoute) *Graph { return g.setRoute(TLSRouteOf(r)) }

// SetTCPRoute returns g with TCPRoute r created or replaced.
func (g *Graph) SetTCPRoute(r *gwv1.TCPRoute) *Graph { return g.setRoute(TCPRouteOf(r)) }

// SetUDPRoute returns g with UDPRoute r created or replaced.
func (g *Graph) SetUDPRoute(r *gwv1.UDPRoute) *Graph { return g.setRoute(UDPRouteOf(r)) }

func (g *Graph) setRoute(r *Route) *Graph {
	e := newEditor(g)
	rt := r.target()
	id := e.id(rt)
	old, had := e.route(id)
	if !had {
		ts, _ := e.nsRoutes.get(r.Key.Namespace)
		e.nsRoutes.set(r.Key.Namespace, append(slices.Clip(ts), id))
	}
	e.reref(id, old, r)
	e.putRoute(id, r)
	e.attach(old, r)
	return e.finish()
}

// DeleteRoute returns g without the route of kind (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute or
// UDPRoute) and key k.
func (g *Graph) DeleteRoute(kind string, k Key) *Graph {
	rt := Target{Kind: kind, Namespace: k.Namespace, Name: k.Name}
	old, had := g.Route(rt)
	if !had {
		return g
	}
	e := newEditor(g)
	id := e.id(rt)
	e.reref(id, old, nil)
	ts, _ := e.nsRoutes.get(k.Namespace)
	if ts = without(ts, id); len(ts) == 0 {
		e.nsRoutes.del(k.Namespace)
	} else {
		e.nsRoutes.set(k.Namespace, ts)
	}
	e.putRoute(id, nil)
	e.attach(old, nil)
	return e.finish()
}

// SetNamespace returns g with the labels of namespace ns (for allowedRoutes selectors).
func (g *Graph) SetNamespace(ns string, labels map[string]string) *Graph {
	if old, ok := g.nsLabels.get(ns); ok && maps.Equal(old, labels) {
		return g
	}
	e := newEditor(g)
	e.nsLabels.set(ns, labels)
	return e.namespaceChanged(ns)
}

// DeleteNamespace returns g without the labels of namespace ns.
func (g *Graph) DeleteNamespace(ns string) *Graph {
	if _, ok := g.nsLabels.get(ns); !ok {
		return g
	}
	e := newEditor(g)
	e.nsLabels.del(ns)
	return e.namespaceChanged(ns)
}

func (e *editor) namespaceChanged(ns string) *Graph {
	ts, _ := e.nsRoutes.get(ns)
	for _, id := range ts {
		e.reattachRoute(e.g.targets[id])
	}
	// The ListenerSets of ns: a Gateway's allowedListeners selector may now take or leave them.
	lss, _ := e.nsLsets.get(ns)
	for _, l := range lss {
		e.listenerSetChanged(l)
	}
	return e.finish()
}

// SetGatewayClass returns g with GatewayClass name, whose spec.controllerName is controller.
func (g *Graph) SetGatewayClass(name, controller string) *Graph {
	if c, ok := g.classes.get(name); ok && c == controller {
		return g
	}
	e := newEditor(g)
	e.classes.set(name, controller)
	e.id(Target{Kind: "GatewayClass", Name: name})
	return e.done()
}

// DeleteGatewayClass returns g without GatewayClass name.
func (g *Graph) DeleteGatewayClass(name string) *Graph {
	if _, ok := g.classes.get(name); !ok {
		return g
	}
	e := newEditor(g)
	e.classes.del(name)
	return e.done()
}

// finish redoes the listeners' paths of the Gateways and ListenerSets whose routes changed, and
// returns the version.
func (e *editor) finish() *Graph {
	e.flush()
	for _, k := range slices.SortedFunc(maps.Keys(e.gws), Key.Compare) {
		e.listenerPaths(k)
	}
	for _, k := range slices.SortedFunc(maps.Keys(e.lss), Key.Compare) {
		e.lsListenerPaths(k)
	}
	return e.done()
}

// reref moves route number rt in the index of the Gateways its parentRefs name, from old's to
// cur's (nil for none).
func (e *editor) reref(rt int32, old, cur *Route) {
	var was, is []Target
	if old != nil {
		was = parentKeys(old)
	}
	if cur != nil {
		is = parentKeys(cur)
	}
	for _, k := range was {
		if !slices.Contains(is, k) {
			ts, _ := e.refs.get(k)
			if ts = without(ts, rt); len(ts) == 0 {
				e.refs.del(k)
			} else {
				e.refs.set(k, ts)
			}
		}
	}
	for _, k := range is {
		if !slices.Contains(was, k) {
			ts, _ := e.refs.get(k)
			e.refs.set(k, append(slices.Clip(ts), rt))
		}
	}
}

// without is xs less x, as a new slice.
func without[T comparable](xs []T, x T) []T {
	out := make([]T, 0, len(xs))
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// attach replaces the paths of route old (nil: none) by those of cur (nil: deleted) over the
// Gateways and labels of the edit, leaving them when they are the same, and keeps Unattached.
func (e *editor) attach(old, cur *Route) {
	var have []int
	var rt Target
	if old != nil {
		rt = old.target()
		if id, ok := e.targetIDs.get(rt, e.g.targets); ok {
			have = e.list(id).flat()
		}
	}
	var want []Path
	if cur != nil {
		rt = cur.target()
		want = e.routePaths(cur)
	}
	same := len(have) == len(want)
	for j := 0; same && j < len(want); j++ {
		same = e.g.Paths[have[j]] == want[j]
	}
	if !same {
		for _, i := range have {
			e.dropPath(i)
			e.touch(&e.g.Paths[i])
		}
		for j, p := range want {
			e.addPath(p, j)
			e.touch(&p)
		}
	}
	_, was := e.unattached.get(rt)
	is := cur != nil && len(want) == 0
	switch {
	case is && !was:
		e.unattached.set(rt, true)
		i, _ := slices.BinarySearchFunc(e.g.Unattached, rt, targetCompare)
		e.g.Unattached = slices.Insert(slices.Clone(e.g.Unattached), i, rt)
	case was && !is:
		e.unattached.del(rt)
		e.g.Unattached = without(e.g.Unattached, rt)
		if len(e.g.Unattached) == 0 {
			e.g.Unattached = nil
		}
	}
}

// touch marks the owner of path p's listener (a Gateway or a ListenerSet) for finish.
func (e *editor) touch(p *Path) {
	if p.ListenerSet.Name != "" {
		e.lss[p.ListenerSet] = true
	} else {
		e.gws[p.Gateway] = true
	}
}
