package effective

import (
	"cmp"
	"fmt"
	"sort"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Item is the effective policy of one path as the CLI contract prints it.
type Item struct {
	Kind string `json:"kind"`
	// Group is the API group of Kind: two groups can have a kind of one name.
	Group    string                 `json:"group"`
	Gateway  string                 `json:"gateway"`
	Listener string                 `json:"listener"`
	Route    string                 `json:"route"`
	Rule     string                 `json:"rule"`
	Spec     map[string]interface{} `json:"spec"`
	Sources  map[string]string      `json:"sources"`
}

// ItemKey is the displayed path of an item: the listener and the rule are shown only when a policy
// of the path targets that section; paths that differ only in hidden sections share one item (they
// have the same policies, hence the same effective policy).
type ItemKey struct {
	Gateway, Listener, Route, Rule string
}

// Reached returns the indexes of the paths reached by at least one policy of this view, optionally
// only those beneath target (nil: all).
func (s *Snapshot) Reached(target *topology.Target) []int {
	var candidates []int
	if target != nil {
		candidates = s.PathsFor(*target)
	} else {
		candidates = s.PathIndexes()
	}
	var out []int
	for _, i := range candidates {
		if s.reaches(i) {
			out = append(out, i)
		}
	}
	return out
}

// reaches reports whether some policy of this view is at a level of path i (Levels is not empty),
// by the path's target numbers: Reached(nil) asks it of every path, and looking its targets up by
// name, with a slice of levels per path, cost a replica's start a hash and a cache miss per level
// and 285 MB of garbage at 10x.
func (s *Snapshot) reaches(i int) bool {
	ids := s.Graph.PathTargetIDs(i)
	for _, id := range ids[:s.Graph.Paths[i].Depth()] {
		if len(s.atID(id)) > 0 {
			return true
		}
	}
	return false
}

// KeyOf returns the displayed key of a path: the listener is shown when some listener of its
// Gateway has a policy (or the path has no route), the rule when some rule of its route has one. A
// ListenerSet's listener is always shown, as `ListenerSet ns/name#listener`: its paths have levels
// the Gateway's own listeners do not.
func (s *Snapshot) KeyOf(path topology.Path) ItemKey {
	k := ItemKey{Gateway: path.Gateway.String()}
	if path.ListenerSet.Name != "" {
		k.Listener = topology.Target{Kind: "ListenerSet", Namespace: path.ListenerSet.Namespace, Name: path.ListenerSet.Name, Section: path.Listener}.String()
	} else if path.RouteKind == "" || s.listenersSplit(path.Gateway) {
		k.Listener = path.Listener
	}
	if path.RouteKind != "" {
		k.Route = path.Route.String()
		if s.rulesSplit(topology.Target{Kind: path.RouteKind, Namespace: path.Route.Namespace, Name: path.Route.Name}) {
			k.Rule = path.Rule
		}
	}
	return k
}

func (s *Snapshot) listenersSplit(gw topology.Key) bool {
	g, ok := s.Graph.Gateway(gw)
	if !ok {
		return false
	}
	for _, l := range g.Spec.Listeners {
		if len(s.At(topology.Target{Kind: "Gateway", Namespace: gw.Namespace, Name: gw.Name, Section: string(l.Name)})) > 0 {
			return true
		}
	}
	return false
}

func (s *Snapshot) rulesSplit(route topology.Target) bool {
	r, ok := s.Graph.Route(route)
	if !ok {
		return false
	}
	for _, name := range r.Rules {
		t := route
		t.Section = name
		if len(s.At(t)) > 0 {
			return true
		}
	}
	return false
}

// Items computes the effective policy of the given paths, one item per displayed key, sorted by
// gateway, then route, then rule, then listener.
func (s *Snapshot) Items(paths []int) []Item {
	seen := map[ItemKey]bool{}
	var out []Item
	for _, i := range paths {
		path := s.Graph.Paths[i]
		k := s.KeyOf(path)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s.ItemFor(k, s.Compute(path)))
	}
	SortItems(out)
	return out
}

// SortItems orders items as the CLI contract lists them: by gateway, then route, then rule (then
// listener).
func SortItems(items []Item) {
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		return KeyLess(ItemKey{a.Gateway, a.Listener, a.Route, a.Rule}, ItemKey{b.Gateway, b.Listener, b.Route, b.Rule})
	})
}

// Beneath reports whether the displayed path k goes through target t: its Gateway, its route (of
// either kind: paths name a route by namespace/name), or any path for a GatewayClass (every Gateway
// of an offline input is taken to be of the class).
func (k ItemKey) Beneath(t topology.Target) bool {
	name := t.Namespace + "/" + t.Name
	switch t.Kind {
	case "GatewayClass":
		return true
	case "Gateway":
		return k.Gateway == name
	case "HTTPRoute", "GRPCRoute":
		return k.Route == name
	}
	return false
}

// Undeclared is explain's error for a rule id that no policy of kind k in the input sets.
func Undeclared(k policy.Kind, rule string) error {
	return fmt.Errorf("no %s.%s declares rule %q", k.GVK.Kind, k.GVK.Group, rule)
}

// KeyLess orders displayed paths as the CLI contract lists them (SortItems).
func KeyLess(a, b ItemKey) bool {
	return cmp.Or(cmp.Compare(a.Gateway, b.Gateway), cmp.Compare(a.Route, b.Route), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Listener, b.Listener)) < 0
}

// ItemFor renders a result.
func (s *Snapshot) ItemFor(k ItemKey, r Result) Item {
	rules := make(map[string]interface{}, len(r.Rules))
	sources := make(map[string]string, len(r.Rules))
	for id, e := range r.Rules {
		rules[id] = e.Body
		sources[id] = e.Source.String()
	}
	return Item{
		Kind: s.Kind.GVK.Kind, Gateway: k.Gateway, Listener: k.Listener, Route: k.Route, Rule: k.Rule,
		Spec: policy.BareForm(s.Kind, rules), Sources: sources,
	}
}
