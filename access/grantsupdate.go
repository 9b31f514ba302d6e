package access

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// Update returns the Grants of g's policies with the policy keyed as key replaced by p (added when
// none is keyed so, removed when p is nil), over the same topology and settings. Only the grants
// behind the Gateways in front of the Backends the old or the new policy targets are built again; the
// rest is shared with g, which stays valid and unchanged: requests that read g meanwhile see the
// version they started with.
func (g *Grants) Update(key string, p *Policy) *Grants {
	s := g.settings
	old := g.byKey[key]
	if old == nil && p == nil {
		return g
	}
	n := &Grants{topo: g.topo, settings: s, byKey: maps.Clone(g.byKey), gateway: maps.Clone(g.gateway),
		behind: maps.Clone(g.behind), backends: maps.Clone(g.backends)}

	// The policies, sorted by key, for the reference that answers Backend-level writes: listed on
	// first use, so that an event costs what it touches.
	var np *Policy
	delete(n.byKey, key)
	if p != nil {
		q := *p
		np = &q
		n.byKey[key] = np
	}
	n.policies = sync.OnceValue(func() []Policy {
		l := make([]Policy, 0, len(n.byKey))
		for _, q := range n.byKey {
			l = append(l, *q)
		}
		slices.SortFunc(l, func(a, b Policy) int { return strings.Compare(a.Key(), b.Key()) })
		return l
	})

	// The Gateway-level policies of the Gateways either version targets, in key order.
	var gws []string
	for _, q := range []*Policy{old, np} {
		if q != nil {
			gws = append(gws, targetKeys(q, GatewayGroup, GatewayKind)...)
		}
	}
	for _, gw := range compact(gws) {
		l := withoutKey(g.gateway[gw], key)
		if np != nil && targetsKey(np, GatewayGroup, GatewayKind, gw) {
			l = append(l, np)
			slices.SortStableFunc(l, func(a, b *Policy) int { return strings.Compare(a.Key(), b.Key()) })
		}
		setOrDelete(n.gateway, gw, l)
	}

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
		l := withoutKey(g.backends[b], key)
		if np != nil && targetsKey(np, s.BackendGroup, s.BackendKind, b) {
			l = append(l, np)
			slices.SortStableFunc(l, func(a, b *Policy) int { return strings.Compare(a.Key(), b.Key()) })
			slices.SortStableFunc(l, func(a, b *Policy) int {
				switch {
				case before(a, b):
					return -1
				case before(b, a):
					return 1
				}
				return 0
			})
		}
		setOrDelete(n.backends, b, l)
		front = append(front, g.topo.GatewaysInFront(b)...)
	}
	seen := map[grant]bool{}
	for _, gw := range compact(front) {
		if gg := n.grantsBehind(g.topo.BackendsBehind(gw), seen); gg != nil {
			n.behind[gw] = gg
		} else {
			delete(n.behind, gw)
		}
	}
	return n
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

func setOrDelete(m map[string][]*Policy, k string, l []*Policy) {
	if len(l) == 0 {
		delete(m, k)
		return
	}
	m[k] = l
}

func compact(l []string) []string {
	slices.Sort(l)
	return slices.Compact(l)
}
