package engine

import (
	"strconv"
)

// maxDepth bounds a delegation chain (kgateway rejects cycles; the bound keeps a cycle in the
// input from looping here).
const maxDepth = 8

// Hop is one route of a path and the rule the path takes through it: the delegating rule of a
// parent route, the traffic's rule of the leaf.
type Hop struct {
	Route Key
	Rule  int
}

// Path is one Gateway (or ListenerSet) listener → root route → … → leaf route rule path.
type Path struct {
	Parent ParentRef
	// Listener is the listener the traffic comes through: the parentRef's sectionName, else one of
	// the listeners the route attaches to.
	Listener string
	Chain    []Hop // root first
}

// Leaf is the path's last hop.
func (p Path) Leaf() Hop { return p.Chain[len(p.Chain)-1] }

// View is the world as a write would leave it: one policy replaced (Drop removed, Add added) and
// owners' annotations changed (Modes, by owner: "route ns/name", "gateway ns/name"). The zero
// changes are the world itself.
type View struct {
	*World
	Drop  Key
	Add   *Policy
	Modes map[string]Mode
}

// Paths are the paths through the rules of route k that carry traffic (not delegating).
func (v View) Paths(k Key) []Path {
	r := v.Routes[k]
	if r == nil {
		return nil
	}
	var out []Path
	for i, rule := range r.Rules {
		if len(rule.Delegates) > 0 {
			continue
		}
		for _, up := range v.chains(k, i, 0, map[Key]bool{}) {
			out = append(out, up)
		}
	}
	return out
}

// chains are the paths ending at route k, rule i.
func (v View) chains(k Key, i int, depth int, seen map[Key]bool) []Path {
	if depth > maxDepth || seen[k] {
		return nil
	}
	seen[k] = true
	defer delete(seen, k)
	r := v.Routes[k]
	var out []Path
	for _, g := range r.Gateways {
		for _, l := range v.listenersOf(g, r) {
			out = append(out, Path{Parent: g, Listener: l, Chain: []Hop{{k, i}}})
		}
	}
	for _, e := range v.parents[k] {
		if !hasRule(e.Rules, i) {
			continue
		}
		for _, up := range v.chains(e.Parent, e.Rule, depth+1, seen) {
			up.Chain = append(up.Chain, Hop{k, i})
			out = append(out, up)
		}
	}
	return out
}

// on returns the policies attached at (kind, k, section) in the view.
func (v View) on(kind string, k Key, section string) []*Policy {
	ps := v.World.On(kind, k, section)
	if v.Drop == (Key{}) && v.Add == nil {
		return ps
	}
	out := make([]*Policy, 0, len(ps)+1)
	for _, p := range ps {
		if p.Ref != v.Drop {
			out = append(out, p)
		}
	}
	if v.Add != nil && v.Add.Ref.Namespace == k.Namespace && v.attaches(kind, k, section) {
		out = append(out, v.Add)
	}
	return out
}

// attaches reports whether the added policy targets (kind, k, section).
func (v View) attaches(kind string, k Key, section string) bool {
	for _, t := range v.Add.Targets {
		tk := t.Kind
		if tk == "XListenerSet" {
			tk = "ListenerSet"
		}
		if tk == kind && t.Name == k.Name && t.Section == section {
			return true
		}
	}
	for _, s := range v.Add.Selectors {
		sk := s.Kind
		if sk == "XListenerSet" {
			sk = "ListenerSet"
		}
		if sk == kind && s.Section == section && matches(v.labelsOf(kind, k), s.Labels) {
			return true
		}
	}
	return false
}

// labelsOf are the labels of the route, Gateway or ListenerSet k (nil when there is none).
func (v View) labelsOf(kind string, k Key) map[string]string {
	switch kind {
	case "HTTPRoute":
		if r := v.Routes[k]; r != nil {
			return r.Labels
		}
	case "Gateway":
		if g := v.Gateways[k]; g != nil {
			return g.Labels
		}
	default:
		if l := v.ListenerSets[k]; l != nil {
			return l.Labels
		}
	}
	return nil
}

// policy is the policy named k in the view.
func (v View) policy(k Key) *Policy {
	if v.Add != nil && v.Add.Ref == k {
		return v.Add
	}
	if k == v.Drop {
		return nil
	}
	return v.Policy(k)
}

func (v View) mode(owner string, m Mode) Mode {
	if x, ok := v.Modes[owner]; ok {
		return x
	}
	return m
}

// Levels are the hierarchy levels of p, most specific first: the leaf route, each delegating
// route up to the root, then the Gateway's.
func (v View) Levels(p Path) []Level {
	var out []Level
	for i := len(p.Chain) - 1; i >= 0; i-- {
		h := p.Chain[i]
		r := v.Routes[h.Route]
		var rs []ranked
		rule := r.Rules[h.Rule]
		for _, n := range rule.ExtRefs {
			if pol := v.policy(Key{h.Route.Namespace, n}); pol != nil {
				rs = append(rs, ranked{pol, 0})
			}
		}
		if rule.Name != "" {
			for _, pol := range v.on("HTTPRoute", h.Route, rule.Name) {
				rs = append(rs, ranked{pol, 1})
			}
		}
		for _, pol := range v.on("HTTPRoute", h.Route, "") {
			rs = append(rs, ranked{pol, 2})
		}
		owner := "route " + h.Route.String()
		out = append(out, Level{Owner: owner, Mode: v.mode(owner, r.Priority), Policies: order(rs)})
	}
	return append(out, v.gatewayLevel(p.Parent, p.Listener))
}

// gatewayLevel: listener, ListenerSet, then Gateway policies, merged as one hierarchy as kgateway's
// listener translation does; routes inherit them as ShallowMergePreferChild.
func (v View) gatewayLevel(pr ParentRef, listener string) Level {
	var rs []ranked
	gw := pr.Key
	if pr.Kind == "ListenerSet" || pr.Kind == "XListenerSet" {
		if listener != "" {
			for _, pol := range v.on("ListenerSet", pr.Key, listener) {
				rs = append(rs, ranked{pol, 0})
			}
		}
		for _, pol := range v.on("ListenerSet", pr.Key, "") {
			rs = append(rs, ranked{pol, 1})
		}
		gw = Key{}
		if ls := v.ListenerSets[pr.Key]; ls != nil {
			gw = ls.Parent
		}
	} else if listener != "" {
		for _, pol := range v.on("Gateway", gw, listener) {
			rs = append(rs, ranked{pol, 0})
		}
	}
	for _, pol := range v.on("Gateway", gw, "") {
		rs = append(rs, ranked{pol, 2})
	}
	// kgateway 2.2 attaches a Gateway's policies with no priority of their own (ToAttachedPolicies
	// without WithInheritedPolicyPriority), which merges as ShallowMergePreferChild
	// (GetMergeStrategy's default), whatever the Gateway's annotation says.
	return Level{Owner: "gateway " + gw.String(), Mode: ShallowPreferChild, Policies: order(rs)}
}

// Compute folds path p.
func (v View) Compute(p Path) Result { return Fold(v.Levels(p)) }

// RuleName is how a rule shows: its name, else rule-<index>, as the CLI names unnamed rules.
func (r *Route) RuleName(i int) string {
	if n := r.Rules[i].Name; n != "" {
		return n
	}
	return "rule-" + strconv.Itoa(i)
}

// Descendants are the routes delegated to from k, transitively, k included, each once.
func (v View) Descendants(k Key) []Key {
	seen := map[Key]bool{}
	var out []Key
	var walk func(Key, int)
	walk = func(x Key, d int) {
		if seen[x] || d > maxDepth {
			return
		}
		seen[x] = true
		out = append(out, x)
		for _, c := range v.children[x] {
			walk(c, d+1)
		}
	}
	walk(k, 0)
	return out
}

func hasRule(rules []int, i int) bool {
	for _, r := range rules {
		if r == i {
			return true
		}
	}
	return false
}
