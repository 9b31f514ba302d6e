package engine

import (
	"iter"
	"maps"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/profiles/internal/pmap"
)

// Route is an HTTPRoute as the engine reads it.
type Route struct {
	Key      Key
	Labels   map[string]string
	Priority Mode
	// Gateways are its parentRefs to Gateways and ListenerSets (a delegated child has none).
	Gateways []ParentRef
	Rules    []Rule
	// Hosts are its hostnames (a delegated child that sets any is not attached).
	Hosts []string
	// Delegation's view of a child: its parentRefs to HTTPRoutes, whether it has any parentRefs,
	// and whether it inherits its parent's matcher.
	ParentRoutes   []Key
	HasParentRefs  bool
	InheritMatcher bool
}

// ParentRef is a route's parentRef to a Gateway or a ListenerSet, with its listener.
type ParentRef struct {
	Kind    string
	Key     Key
	Section string
}

// Rule is one route rule: its name (what a sectionName targets), the TrafficPolicies its
// ExtensionRef filters name, and the routes it delegates to.
type Rule struct {
	Name      string
	ExtRefs   []string
	Delegates []Delegation
	Matches   []Match
}

// Delegation is one backendRef of a rule to child routes: by name, or by the delegation label.
type Delegation struct {
	Namespace string
	Name      string // a route's name, "*" (or "") for every route of the namespace; "" with Label
	Label     string
}

// Owner is a Gateway or ListenerSet; a ListenerSet's Parent is its Gateway. Its
// inherited-policy-priority annotation is not read: kgateway 2.2 reads it on HTTPRoutes only
// (krtcollections getInheritedPolicyPriority, called from transformHttpRoute).
type Owner struct {
	Key       Key
	Labels    map[string]string
	Parent    Key
	Listeners []Listener
}

// The kgateway versions whose behaviour the engine predicts, oldest first: v2.2, the newest the Go
// module proxy serves (github.com/kgateway-dev/kgateway/v2@v2.2.0); it refuses the newer ones, so no
// newer line can be read and cited.
const Version22 = "2.2"

// Versions are the versions, oldest first.
var Versions = []string{Version22}

// World is the objects a snapshot is computed from, indexed.
type World struct {
	Routes       map[Key]*Route
	Gateways     map[Key]*Owner
	ListenerSets map[Key]*Owner
	// policies are the TrafficPolicies by key (Policy, Policies), persistent: a step (WithPolicy)
	// shares all but the policy it changes.
	policies pmap.Map[Key, *Policy]

	byLabel  map[string][]Key                     // delegation label value → routes
	parents  map[Key][]edge                       // child route → delegating routes and rules
	children map[Key][]Key                        // parent route → child routes
	attached map[Target]*pmap.Map[Key, []*Policy] // (kind, section) → object → policies
	roots    map[Key][]Key                        // Gateway or ListenerSet → routes attached to it
	extUsers map[Key][]Key                        // TrafficPolicy → routes whose extensionRef filters name it
}

// edge is a delegation from a parent route's rule to a child, with the child's rules that attach.
type edge struct {
	Parent Key
	Rule   int
	Rules  []int
}

// New indexes objs: Gateways, ListenerSets, HTTPRoutes and TrafficPolicies (others are ignored).
func New(objs []*unstructured.Unstructured) *World {
	return NewTopology(objs).WithPolicies(objs)
}

// NewTopology indexes the Gateways, ListenerSets and HTTPRoutes of objs: a world without policies.
func NewTopology(objs []*unstructured.Unstructured) *World {
	w := &World{Routes: map[Key]*Route{}, Gateways: map[Key]*Owner{}, ListenerSets: map[Key]*Owner{}}
	for _, u := range objs {
		k := Key{u.GetNamespace(), u.GetName()}
		switch u.GetKind() {
		case "Gateway":
			w.Gateways[k] = &Owner{Key: k, Labels: u.GetLabels(), Listeners: readListeners(u)}
		case "ListenerSet", "XListenerSet":
			ref, _, _ := unstructured.NestedMap(u.Object, "spec", "parentRef")
			ns := str(ref, "namespace")
			if ns == "" {
				ns = k.Namespace
			}
			w.ListenerSets[k] = &Owner{Key: k, Labels: u.GetLabels(), Parent: Key{ns, str(ref, "name")}, Listeners: readListeners(u)}
		case "HTTPRoute":
			w.Routes[k] = readRoute(u)
		}
	}
	w.index()
	return w
}

// WithPolicies is w's topology with the TrafficPolicies of objs (and none of w's): a new world
// sharing w's routes, Gateways, ListenerSets and their indexes, which neither changes. A change of
// the policies alone is indexed at the cost of the policies, not of the topology.
func (w *World) WithPolicies(objs []*unstructured.Unstructured) *World {
	n := *w
	policies := map[Key]*Policy{}
	for _, u := range objs {
		if u.GetKind() != TrafficPolicy {
			continue
		}
		if p, errs := Read(u); len(errs) == 0 {
			policies[Key{u.GetNamespace(), u.GetName()}] = p
		}
	}
	n.policies = pmap.Of(policies)
	attached := map[Target]map[Key][]*Policy{}
	for _, pk := range mapKeys(policies) {
		p := policies[pk]
		for _, pl := range n.places(p) {
			m := attached[pl.target]
			if m == nil {
				m = map[Key][]*Policy{}
				attached[pl.target] = m
			}
			m[pl.key] = append(m[pl.key], p)
		}
	}
	n.attached = make(map[Target]*pmap.Map[Key, []*Policy], len(attached))
	for t, m := range attached {
		pm := pmap.Of(m)
		n.attached[t] = &pm
	}
	return &n
}

// Policy is the TrafficPolicy of key k, nil if the world has none.
func (w *World) Policy(k Key) *Policy {
	p, _ := w.policies.Get(k)
	return p
}

// Policies yields the world's TrafficPolicies by key, in no particular order.
func (w *World) Policies() iter.Seq2[Key, *Policy] { return w.policies.All() }

func modeOf(u *unstructured.Unstructured) Mode {
	return ParseMode(u.GetAnnotations()[Annotation])
}

func readRoute(u *unstructured.Unstructured) *Route {
	r := &Route{Key: Key{u.GetNamespace(), u.GetName()}, Labels: u.GetLabels(), Priority: modeOf(u)}
	prs, _, _ := unstructured.NestedSlice(u.Object, "spec", "parentRefs")
	for _, x := range prs {
		m, _ := x.(map[string]interface{})
		kind := str(m, "kind")
		if kind == "" {
			kind = "Gateway"
		}
		if kind != "Gateway" && kind != "ListenerSet" && kind != "XListenerSet" {
			continue // a parentRef to an HTTPRoute is the child's side of delegation: kgateway reads the parent's backendRefs
		}
		ns := str(m, "namespace")
		if ns == "" {
			ns = r.Key.Namespace
		}
		r.Gateways = append(r.Gateways, ParentRef{Kind: kind, Key: Key{ns, str(m, "name")}, Section: str(m, "sectionName")})
	}
	rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
	for _, x := range rules {
		m, _ := x.(map[string]interface{})
		rule := Rule{Name: str(m, "name"), Matches: readMatches(m)}
		fs, _ := m["filters"].([]interface{})
		for _, f := range fs {
			fm, _ := f.(map[string]interface{})
			ext, _ := fm["extensionRef"].(map[string]interface{})
			if str(fm, "type") == "ExtensionRef" && str(ext, "group") == Group && str(ext, "kind") == TrafficPolicy {
				rule.ExtRefs = append(rule.ExtRefs, str(ext, "name"))
			}
		}
		brs, _ := m["backendRefs"].([]interface{})
		for _, b := range brs {
			bm, _ := b.(map[string]interface{})
			ns := str(bm, "namespace")
			if ns == "" {
				ns = r.Key.Namespace
			}
			switch {
			case str(bm, "kind") == "HTTPRoute" && str(bm, "group") == GatewayGroup:
				rule.Delegates = append(rule.Delegates, Delegation{Namespace: ns, Name: str(bm, "name")}) // "" or "*": every route of ns
			case str(bm, "kind") == DelegationKind && str(bm, "group") == DelegationGroup:
				rule.Delegates = append(rule.Delegates, Delegation{Namespace: ns, Label: str(bm, "name")})
			}
		}
		r.Rules = append(r.Rules, rule)
	}
	readDelegation(r, u)
	return r
}

// index builds the delegation edges and the routes' indexes (WithPolicies the attachments).
func (w *World) index() {
	w.byLabel = map[string][]Key{}
	for k, r := range w.Routes {
		if v, ok := r.Labels[DelegationLabel]; ok {
			w.byLabel[v] = append(w.byLabel[v], k)
		}
	}
	for _, ks := range w.byLabel {
		sortKeys(ks)
	}
	w.parents, w.children = map[Key][]edge{}, map[Key][]Key{}
	w.roots, w.extUsers = map[Key][]Key{}, map[Key][]Key{}
	for _, pk := range w.routeKeys() {
		for _, g := range w.Routes[pk].Gateways {
			w.roots[g.Key] = append(w.roots[g.Key], pk)
		}
		for _, rule := range w.Routes[pk].Rules {
			for _, n := range rule.ExtRefs {
				w.extUsers[Key{pk.Namespace, n}] = append(w.extUsers[Key{pk.Namespace, n}], pk)
			}
		}
		for i, rule := range w.Routes[pk].Rules {
			for _, d := range rule.Delegates {
				for _, ck := range w.delegated(d) {
					if ck == pk {
						continue
					}
					rules := attachedRules(w.Routes[pk], i, w.Routes[ck])
					if len(rules) == 0 {
						continue
					}
					w.parents[ck] = append(w.parents[ck], edge{Parent: pk, Rule: i, Rules: rules})
					w.children[pk] = append(w.children[pk], ck)
				}
			}
		}
	}
}

// place is where a policy attaches: an object of a kind (and section) of the world.
type place struct {
	target Target
	key    Key
}

// places are where p attaches, once for each of its targetRefs and of the objects its selectors
// select, in that order.
func (w *World) places(p *Policy) []place {
	var out []place
	add := func(kind, name, section string) {
		if kind == "XListenerSet" {
			kind = "ListenerSet"
		}
		out = append(out, place{Target{Kind: kind, Section: section}, Key{p.Ref.Namespace, name}})
	}
	for _, t := range p.Targets {
		add(t.Kind, t.Name, t.Section)
	}
	for _, s := range p.Selectors {
		for _, k := range w.selected(s, p.Ref.Namespace) {
			add(s.Kind, k.Name, s.Section)
		}
	}
	return out
}

// WithPolicy is w with the TrafficPolicy of key k read as p (nil: none): the world WithPolicies
// gives for w's policies with that one changed, sharing w's indexes but for the policy and the
// lists of the objects the old and the new p attach to (persistent maps: w is unchanged). A
// policy's write is indexed at the cost of those, not of reading every policy again.
func (w *World) WithPolicy(k Key, p *Policy) *World {
	n := *w
	n.attached = maps.Clone(w.attached)
	list := func(pl place) []*Policy {
		if m := n.attached[pl.target]; m != nil {
			ps, _ := m.Get(pl.key)
			return ps
		}
		return nil
	}
	set := func(pl place, ps []*Policy) { // as WithPolicies leaves them: no empty list or map
		m := n.attached[pl.target]
		if m == nil {
			m = &pmap.Map[Key, []*Policy]{}
		}
		if len(ps) > 0 {
			m = m.Set(pl.key, ps)
		} else {
			m = m.Delete(pl.key)
		}
		if m.Len() == 0 {
			delete(n.attached, pl.target)
			return
		}
		n.attached[pl.target] = m
	}
	if old := w.Policy(k); old != nil {
		n.policies = *n.policies.Delete(k)
		for _, pl := range w.places(old) {
			set(pl, slices.DeleteFunc(slices.Clone(list(pl)), func(q *Policy) bool { return q == old }))
		}
	}
	if p == nil {
		return &n
	}
	n.policies = *n.policies.Set(k, p)
	for _, pl := range n.places(p) {
		// The lists hold the policies in the order of their keys (WithPolicies attaches them so),
		// each policy's places together.
		ps := list(pl)
		i := sort.Search(len(ps), func(i int) bool { return !keyLess(ps[i].Ref, k) })
		set(pl, slices.Insert(slices.Clone(ps), i, p))
	}
	return &n
}

// keyLess is sortKeys's order.
func keyLess(a, b Key) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// selected are the objects of s's kind (HTTPRoute, Gateway or ListenerSet) in ns whose labels
// match s (pkg/krtcollections/policy.go: targetSelectors are resolved for every kind a targetRef
// may name, with the selector's sectionName).
func (w *World) selected(s Selector, ns string) []Key {
	var out []Key
	switch s.Kind {
	case "HTTPRoute":
		for _, k := range w.routeKeys() {
			if k.Namespace == ns && matches(w.Routes[k].Labels, s.Labels) {
				out = append(out, k)
			}
		}
	case "Gateway", "ListenerSet", "XListenerSet":
		owners := w.Gateways
		if s.Kind != "Gateway" {
			owners = w.ListenerSets
		}
		for _, k := range mapKeys(owners) {
			if k.Namespace == ns && matches(owners[k].Labels, s.Labels) {
				out = append(out, k)
			}
		}
	}
	return out
}

func matches(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// On returns the policies attached to the object (kind, key) at section ("" for the whole object).
func (w *World) On(kind string, k Key, section string) []*Policy {
	m := w.attached[Target{Kind: kind, Section: section}]
	if m == nil {
		return nil
	}
	ps, _ := m.Get(k)
	return ps
}

func (w *World) routeKeys() []Key { return mapKeys(w.Routes) }

func mapKeys[V any](m map[Key]V) []Key {
	out := make([]Key, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortKeys(out)
	return out
}

func sortKeys(ks []Key) {
	sort.Slice(ks, func(i, j int) bool { return keyLess(ks[i], ks[j]) })
}
