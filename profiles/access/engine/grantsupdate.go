package engine

import (
	"slices"
	"strings"
	"sync"
)

// Update returns the Grants of g's policies with the policy keyed as key replaced by p (added when
// none is keyed so, removed when p is nil), over the same topology and settings. Behind the Gateways
// in front of the Backends the old or the new policy targets, only the chunks of those Backends are
// built again; the rest is shared with g, which stays valid and unchanged: requests that read g
// meanwhile see the version they started with. The cost does not grow with the policies, Backends or
// Gateways the event does not touch.
func (g *Grants) Update(key string, p *Policy) *Grants {
	s := g.settings
	old := valueAt(&g.byKey, key)
	if old == nil && p == nil {
		return g
	}
	n := &Grants{topo: g.topo, settings: s, byKey: g.byKey, gateway: g.gateway, behind: g.behind, backends: g.backends}

	// The policies, sorted by key, for the reference that answers Backend-level writes: listed on
	// first use, so that an event costs what it touches.
	var np *Policy
	n.byKey = *n.byKey.Delete(key)
	if p != nil {
		q := *p
		np = &q
		n.byKey = *n.byKey.Set(key, np)
	}
	byKey := n.byKey
	n.policies = sync.OnceValue(func() []Policy {
		l := make([]Policy, 0, byKey.Len())
		for _, q := range entries(&byKey) {
			l = append(l, *q)
		}
		slices.SortFunc(l, func(a, b Policy) int { return strings.Compare(a.Key(), b.Key()) })
		return l
	})

	n.updateGateways(g, key, old, np)

	// The Backend-level policies of the Backends either version targets, in precedence order, and the
	// grants behind the Gateways in front of them.
	var bes []string
	for _, q := range []*Policy{old, np} {
		if q != nil {
			bes = append(bes, targetKeys(q, s.BackendGroup, s.BackendKind)...)
		}
	}
	bes = compact(bes)
	if len(bes) == 0 {
		return n
	}
	var front []string
	for _, b := range bes {
		l := withoutKey(valueAt(&g.backends, b), key)
		if np != nil && targetsKey(np, s.BackendGroup, s.BackendKind, b) {
			l = append(l, np)
			slices.SortStableFunc(l, func(a, b *Policy) int { return strings.Compare(a.Key(), b.Key()) })
			slices.SortStableFunc(l, byPrecedence)
		}
		n.backends = setOrDelete(n.backends, b, l)
		front = append(front, g.topo.GatewaysInFront(b)...)
	}
	n.rebuildBehind(g, compact(front), bes)
	return n
}

// updateGateways sets in n the Gateway-level policies of the Gateways either version of the policy
// keyed as key (old in g, np in n) targets, in key order.
func (n *Grants) updateGateways(g *Grants, key string, old, np *Policy) {
	var gws []string
	for _, q := range []*Policy{old, np} {
		if q != nil {
			gws = append(gws, targetKeys(q, GatewayGroup, GatewayKind)...)
		}
	}
	for _, gw := range compact(gws) {
		l := withoutKey(valueAt(&g.gateway, gw), key)
		if np != nil && targetsKey(np, GatewayGroup, GatewayKind, gw) {
			l = append(l, np)
			slices.SortStableFunc(l, func(a, b *Policy) int { return strings.Compare(a.Key(), b.Key()) })
		}
		n.gateway = setOrDelete(n.gateway, gw, l)
	}
}

// rebuildBehind builds again in n, behind each Gateway of front, the chunks of the Backends bes (g
// is the version n was made from).
func (n *Grants) rebuildBehind(g *Grants, front, bes []string) {
	// The chunks of those Backends behind each Gateway in front of them: a policy sits in the chunk of
	// the first of its Backends behind the Gateway, in its place among that Backend's policies.
	seen := map[grant]bool{}
	for _, gw := range front {
		gg := valueAt(&n.behind, gw)
		for _, b := range bes {
			if _, ok := g.topo.links.Get(pairKey(gw, b)); !ok {
				continue
			}
			var old *grantChunk
			if gg != nil {
				old, _ = gg.chunks.Get(b)
			}
			if c := n.chunkOf(g.topo, gw, b, seen); c != nil || old != nil {
				gg = gg.withChunk(b, old, c)
			}
		}
		if gg != nil && gg.total > 0 {
			n.behind = *n.behind.Set(gw, gg)
		} else {
			n.behind = *n.behind.Delete(gw)
		}
	}
}

// WithTopology returns the Grants of g's policies over t, a later version of g's topology in which
// only the Backends behind the Gateways changed differ (as Topology's With* report them). Behind each
// of those Gateways, only the chunks of the Backends that came or went are built again, with those
// of the other Backends their policies target (a policy's grants sit at the first of its Backends
// behind the Gateway). The rest is shared with g, which stays valid and unchanged.
func (g *Grants) WithTopology(t *Topology, changed []string) *Grants {
	if t == nil {
		t = &Topology{}
	}
	n := *g
	n.topo = t
	s := g.settings
	seen := map[grant]bool{}
	for _, gw := range changed {
		var affected []string
		for _, x := range symmetricDiff(g.topo.BackendsBehind(gw), t.BackendsBehind(gw)) {
			affected = append(affected, x)
			for _, p := range valueAt(&g.backends, x) {
				affected = append(affected, targetKeys(p, s.BackendGroup, s.BackendKind)...)
			}
		}
		gg := valueAt(&n.behind, gw)
		for _, b := range compact(affected) {
			var old *grantChunk
			if gg != nil {
				old, _ = gg.chunks.Get(b)
			}
			if c := n.chunkOf(t, gw, b, seen); c != nil || old != nil {
				gg = gg.withChunk(b, old, c)
			}
		}
		if gg != nil && gg.total > 0 {
			n.behind = *n.behind.Set(gw, gg)
		} else {
			n.behind = *n.behind.Delete(gw)
		}
	}
	return &n
}

// symmetricDiff returns the elements of the sorted a and b that are in only one of them, sorted.
func symmetricDiff(a, b []string) []string {
	var out []string
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case a[0] > b[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			a, b = a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// withoutKey returns a copy of l without the policy keyed as key.
func withoutKey(l []*Policy, key string) []*Policy {
	out := make([]*Policy, 0, len(l)+1)
	for _, q := range l {
		if q.Key() != key {
			out = append(out, q)
		}
	}
	return out
}

func setOrDelete(m keyed[[]*Policy], k string, l []*Policy) keyed[[]*Policy] {
	if len(l) == 0 {
		return *m.Delete(k)
	}
	return *m.Set(k, l)
}

func compact(l []string) []string {
	slices.Sort(l)
	return slices.Compact(l)
}
