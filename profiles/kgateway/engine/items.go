package engine

import (
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
)

// Items are the effective TrafficPolicy of every path some policy reaches, in the CLI contract's
// shape: the Gateway (or `ListenerSet ns/name`), the listener when the route names one, the leaf
// route, its rule, the merged fields and the policies each comes from.
func (w *World) Items() []effective.Item {
	v := View{World: w}
	seen := map[effective.ItemKey]bool{}
	var out []effective.Item
	for _, rk := range w.routeKeys() {
		for _, p := range v.Paths(rk) {
			res := v.Compute(p)
			if len(res.Fields) == 0 {
				continue
			}
			k := w.KeyOf(rk, p)
			if seen[k] {
				continue
			}
			seen[k] = true
			it := effective.Item{Kind: TrafficPolicy, Gateway: k.Gateway, Listener: k.Listener, Route: k.Route, Rule: k.Rule,
				Spec: map[string]interface{}{}, Sources: map[string]string{}}
			for f, val := range res.Fields {
				it.Spec[f] = val.Value
				names := make([]string, len(val.Sources))
				for i, s := range val.Sources {
					names[i] = TrafficPolicy + " " + s.String()
				}
				it.Sources[f] = strings.Join(names, ", ")
			}
			out = append(out, it)
		}
	}
	effective.SortItems(out)
	return out
}

// KeyOf is the key `effective` shows path p of leaf route rk under: the Gateway (or `ListenerSet
// ns/name`), the listener when the route names one, the route and its rule.
func (w *World) KeyOf(rk Key, p Path) effective.ItemKey {
	k := effective.ItemKey{Gateway: p.Parent.Key.String(), Listener: p.Parent.Section, Route: rk.String(), Rule: w.Routes[rk].RuleName(p.Leaf().Rule)}
	if k.Listener == "" && w.listeners(p.Parent) > 1 {
		k.Listener = p.Listener // one item per listener the route is served through: their policies differ
	}
	if p.Parent.Kind != "Gateway" {
		k.Gateway = "ListenerSet " + k.Gateway
	}
	return k
}

// RouteKeys are the routes of the world, sorted.
func (w *World) RouteKeys() []Key { return w.routeKeys() }

// listeners counts the listeners of a parentRef's Gateway or ListenerSet.
func (w *World) listeners(pr ParentRef) int {
	if o := w.Gateways[pr.Key]; pr.Kind == "Gateway" && o != nil {
		return len(o.Listeners)
	}
	if o := w.ListenerSets[pr.Key]; o != nil {
		return len(o.Listeners)
	}
	return 0
}
