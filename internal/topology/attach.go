package topology

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// routePaths computes the paths of route r over the Gateways, ListenerSets and namespace labels of
// the edit, in parentRef, listener and rule order.
func (e *editor) routePaths(r *Route) []Path { return e.appendRoutePaths(nil, r) }

// appendRoutePaths appends the paths of route r to out (routePaths into a buffer a build reuses).
func (e *editor) appendRoutePaths(out []Path, r *Route) []Path {
	for _, pr := range r.Parents {
		at, ok := e.parentListeners(r, pr)
		if !ok {
			continue
		}
		for _, l := range at.listeners {
			for _, rule := range r.Rules {
				out = append(out, Path{Class: at.class, Gateway: at.gateway, ListenerSet: at.lset, Listener: l, RouteKind: r.Kind, Route: r.Key, Rule: rule})
			}
		}
	}
	return out
}

// parentKey is the parent (a Gateway or ListenerSet target, no section) a parentRef of r names;
// false for a parent of another kind.
func parentKey(r *Route, pr gwv1.ParentReference) (Target, bool) {
	if pr.Group != nil && string(*pr.Group) != Group {
		return Target{}, false
	}
	kind := "Gateway"
	if pr.Kind != nil {
		kind = string(*pr.Kind)
	}
	if kind != "Gateway" && kind != "ListenerSet" {
		return Target{}, false
	}
	ns := r.Key.Namespace
	if pr.Namespace != nil && *pr.Namespace != "" {
		ns = string(*pr.Namespace)
	}
	return Target{Kind: kind, Namespace: ns, Name: string(pr.Name)}, true
}

// parentKeys lists the parents the parentRefs of r name, without repeats.
func parentKeys(r *Route) []Target {
	var out []Target
	for _, pr := range r.Parents {
		if k, ok := parentKey(r, pr); ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// attachment is where one parentRef of a route attaches: the class and Gateway, the ListenerSet
// (zero for a Gateway's own listeners), and the listeners.
type attachment struct {
	class     string
	gateway   Key
	lset      Key
	listeners []string
}

// selector decides label selectors over the labels of namespace ns, as the edit knows them.
func (e *editor) selector(ns string) func(*metav1.LabelSelector) bool {
	return func(sel *metav1.LabelSelector) bool {
		ls, err := metav1.LabelSelectorAsSelector(sel)
		nsl, _ := e.nsLabels.get(ns)
		return err == nil && ls.Matches(labels.Set(nsl))
	}
}

// parentListeners resolves one parentRef of a route to where it attaches; false when its parent is
// not there (or a ListenerSet not attached to its Gateway).
func (e *editor) parentListeners(r *Route, pr gwv1.ParentReference) (attachment, bool) {
	pk, ok := parentKey(r, pr)
	if !ok {
		return attachment{}, false
	}
	matches := e.selector(r.Key.Namespace)
	if pk.Kind == "ListenerSet" {
		k := Key{pk.Namespace, pk.Name}
		ls, gw, ok := e.attachedListenerSet(k)
		if !ok {
			return attachment{}, false
		}
		at := attachment{class: string(gw.Spec.GatewayClassName), gateway: Key{gw.Namespace, gw.Name}, lset: Key{ls.Namespace, ls.Name}}
		for _, le := range ls.Spec.Listeners {
			l := ListenerOf(le)
			if SelectsListener(pr, l) && Admits(l, ls.Namespace, r.Kind, r.Key.Namespace, matches) && HostnamesIntersect(l.Hostname, r.Hostnames) {
				at.listeners = append(at.listeners, string(l.Name))
			}
		}
		return at, true
	}
	key := Key{pk.Namespace, pk.Name}
	gw, ok := e.gateways.get(key)
	if !ok {
		return attachment{}, false
	}
	// The keys are the objects' own strings, not the parentRef's: the paths and targets of every
	// route to a Gateway then share them, and comparing them compares pointers, not bytes.
	at := attachment{class: string(gw.Spec.GatewayClassName), gateway: Key{gw.Namespace, gw.Name}}
	for _, l := range gw.Spec.Listeners {
		if SelectsListener(pr, l) && Admits(l, gw.Namespace, r.Kind, r.Key.Namespace, matches) && HostnamesIntersect(l.Hostname, r.Hostnames) {
			at.listeners = append(at.listeners, string(l.Name))
		}
	}
	return at, true
}

// lsParentKey is the Gateway the parentRef of ListenerSet ls names; false for a parent of another
// kind.
func lsParentKey(ls *gwv1.ListenerSet) (Key, bool) {
	pr := ls.Spec.ParentRef
	if pr.Group != nil && *pr.Group != "" && string(*pr.Group) != Group {
		return Key{}, false
	}
	if pr.Kind != nil && *pr.Kind != "" && string(*pr.Kind) != "Gateway" {
		return Key{}, false
	}
	ns := ls.Namespace
	if pr.Namespace != nil && *pr.Namespace != "" {
		ns = string(*pr.Namespace)
	}
	return Key{ns, string(pr.Name)}, true
}

// attachedListenerSet returns ListenerSet k and its parent Gateway when both are there and the
// Gateway's allowedListeners admit the ListenerSet's namespace.
func (e *editor) attachedListenerSet(k Key) (*gwv1.ListenerSet, *gwv1.Gateway, bool) {
	ls, ok := e.lsets.get(k)
	if !ok {
		return nil, nil, false
	}
	pk, ok := lsParentKey(ls)
	if !ok {
		return nil, nil, false
	}
	gw, ok := e.gateways.get(pk)
	if !ok || !AllowsListenerSet(gw, ls.Namespace, e.selector(ls.Namespace)) {
		return nil, nil, false
	}
	return ls, gw, true
}

// AllowsListenerSet reports whether Gateway gw's allowedListeners admit a ListenerSet from
// namespace ns (none unless it says so). selectorMatches decides a Selector for ns.
func AllowsListenerSet(gw *gwv1.Gateway, ns string, selectorMatches func(*metav1.LabelSelector) bool) bool {
	al := gw.Spec.AllowedListeners
	if al == nil || al.Namespaces == nil || al.Namespaces.From == nil {
		return false
	}
	switch *al.Namespaces.From {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSame:
		return ns == gw.Namespace
	case gwv1.NamespacesFromSelector:
		return al.Namespaces.Selector != nil && selectorMatches(al.Namespaces.Selector)
	}
	return false
}

// seqPath is a path without a route and its position among its owner's listeners.
type seqPath struct {
	p   Path
	seq int
}

// listenerPaths brings the paths of Gateway k's own listeners without routes up to date (after a
// flush of the route paths): one for each listener that no route attaches to.
func (e *editor) listenerPaths(k Key) {
	var want []seqPath
	gt := Target{Kind: "Gateway", Namespace: k.Namespace, Name: k.Name}
	if gw, ok := e.gateways.get(k); ok {
		e.id(gt)
		for i, l := range gw.Spec.Listeners {
			lt := gt
			lt.Section = string(l.Name)
			if e.routeAttaches(lt) {
				continue
			}
			want = append(want, seqPath{Path{Class: string(gw.Spec.GatewayClassName), Gateway: k, Listener: string(l.Name)}, i})
		}
	}
	e.ownPaths(gt, want, func(p *Path) bool { return p.ListenerSet.Name == "" })
}

// lsListenerPaths is listenerPaths for the listeners of ListenerSet k (none unless it is attached
// to its Gateway).
func (e *editor) lsListenerPaths(k Key) {
	var want []seqPath
	lt := Target{Kind: "ListenerSet", Namespace: k.Namespace, Name: k.Name}
	if ls, gw, ok := e.attachedListenerSet(k); ok {
		e.id(lt)
		for i, l := range ls.Spec.Listeners {
			st := lt
			st.Section = string(l.Name)
			if e.routeAttaches(st) {
				continue
			}
			want = append(want, seqPath{Path{Class: string(gw.Spec.GatewayClassName), Gateway: Key{gw.Namespace, gw.Name}, ListenerSet: k, Listener: string(l.Name)}, i})
		}
	}
	e.ownPaths(lt, want, func(*Path) bool { return true })
}

// routeAttaches reports whether a route attaches to listener target lt (route paths come first).
func (e *editor) routeAttaches(lt Target) bool {
	id := e.id(lt)
	first, ok := e.list(id).first()
	return ok && e.g.Paths[first].RouteKind != ""
}

// ownPaths replaces the paths without routes beneath owner that mine selects by want, unless they
// are the same.
func (e *editor) ownPaths(owner Target, want []seqPath, mine func(*Path) bool) {
	var have []int
	if id, ok := e.targetIDs.get(owner, e.g.targets); ok {
		for _, i := range e.list(id).flat() {
			if p := &e.g.Paths[i]; p.RouteKind == "" && mine(p) {
				have = append(have, i)
			}
		}
	}
	if len(have) == len(want) {
		same := true
		for n, w := range want {
			if e.g.Paths[have[n]] != w.p || int(e.g.seqs[have[n]]) != w.seq {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	for _, i := range have {
		e.dropPath(i)
	}
	for _, w := range want {
		e.addPath(w.p, w.seq)
	}
}

// AttachedListenerSet returns ListenerSet k and the key of its parent Gateway when the Gateway is
// there and its allowedListeners admit the ListenerSet; false otherwise.
func (g *Graph) AttachedListenerSet(k Key) (*gwv1.ListenerSet, Key, bool) {
	e := &editor{g: g, lsets: g.lsets.edit(), gateways: g.gateways.edit(), nsLabels: g.nsLabels.edit()}
	ls, gw, ok := e.attachedListenerSet(k)
	if !ok {
		return nil, Key{}, false
	}
	return ls, Key{gw.Namespace, gw.Name}, true
}
