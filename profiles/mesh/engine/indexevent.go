package engine

import (
	"reflect"
	"sort"
)

// WithDataplane returns a new index with the Dataplane key ("namespace/name", DataplaneKey) added
// or replaced by dp, or removed when dp is nil. x stays valid and unchanged. The cost is that of
// the classes the Dataplane leaves and joins and of the policies selecting them, not of the mesh:
// the new index shares every other part with x. Only when a group of sources appears or vanishes
// (an inbound tag set that the from elements tell apart from all others) are the classes with from
// elements recomputed. dp is kept, not copied: it must not change.
func (x *Index) WithDataplane(key string, dp *Dataplane) *Index {
	old, had := x.dps.Get(key)
	if !had && dp == nil {
		return x
	}
	y := x.clone()
	t := newTxn(y)
	var e *dpEntry
	if dp != nil {
		e = newDPEntry(dp)
	}
	t.dataplane(key, old, e)
	t.finish()
	return y
}

// WithPolicy returns a new index with the policy id (namespace/name, p.ID()) added or replaced by p,
// or removed when p is nil or not of the index's kind. x stays valid and unchanged. The cost is
// that of the classes whose policies change (the Dataplanes p selects, or all those of the classes
// that held the old version when the targetRef is unchanged) and of the sources their from
// elements select. p is copied.
func (x *Index) WithPolicy(id string, p *Policy) *Index {
	oldE, had := x.pols.Get(id)
	var newP, oldP *Policy
	if p != nil && p.matchesKind(x.kind) {
		cp := *p
		newP = &cp
	}
	if had {
		oldP = oldE.p
	}
	if oldP == nil && newP == nil {
		return x
	}
	splits := x.splits(oldP, newP)
	y := x.clone()
	y.setPolicy(oldE, newP) // oldE is the zero polEntry when !had
	t := newTxn(y)
	for _, k := range x.sourcesOfFrom(oldP, newP) {
		t.rekey(k)
	}
	// Groups split or merged by these from elements alone look alike to the classes that hold
	// neither version: only the classes the write touches are recomputed.
	clear(t.groups)
	for _, s := range splits {
		c := s.c
		if s.selN > 0 {
			ordered := append(append([]*Policy(nil), s.base...), newP)
			sig := y.sigOf(ordered)
			t.move(sig, ordered, s.selN, s.selOut, 1)
			t.from[sig] = c // its heads may do (headsFrom)
		}
		if s.hadOld {
			t.move(c.sig, nil, c.n, c.outbounds, -1)
			if s.restN > 0 {
				t.move(y.sigOf(s.base), s.base, s.restN, s.restOut, 1)
			}
		} else if s.selN > 0 {
			t.move(c.sig, nil, s.selN, s.selOut, -1)
		}
	}
	t.gone = oldP
	t.finish()
	return y
}

// Upsert adds p to the index, or replaces the indexed policy of its namespace/name, in place:
// WithPolicy for an index no one else reads.
func (x *Index) Upsert(p Policy) {
	if !p.matchesKind(x.kind) {
		return
	}
	*x = *x.WithPolicy(p.ID(), &p)
}

// Remove deletes the policy namespace/name (ID) from the index, in place: WithPolicy for an index
// no one else reads.
func (x *Index) Remove(id string) {
	*x = *x.WithPolicy(id, nil)
}

// sigOf returns the signature of the class of the indexed policies given.
func (x *Index) sigOf(pols []*Policy) string {
	slots := make([]int, len(pols))
	for i, p := range pols {
		slots[i] = x.slotOf(p)
	}
	sort.Ints(slots)
	return signature(slots)
}

// sourcesOfFrom returns the sources that the from elements of either policy select (those whose
// group a write of one for the other may change), each once.
func (x *Index) sourcesOfFrom(ps ...*Policy) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		if p == nil {
			continue
		}
		for i := range p.From {
			if _, ok := fromKey(&p.From[i].TargetRef); !ok {
				continue
			}
			for _, s := range x.sourcesSelectedBy(&p.From[i].TargetRef) {
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// split is what a write of newP in place of oldP does to one class c: selN Dataplanes (outbounds
// selOut) leave for the class of base and newP; the rest (restN, restOut) stay, or leave for the
// class of base when c held oldP (hadOld). base is c's policies without oldP.
type split struct {
	c               *class
	base            []*Policy
	hadOld          bool
	selN, restN     int
	selOut, restOut map[string]int
	sel             []*Dataplane // the selected Dataplanes, when they were visited
}

// splits returns the classes a write of newP in place of oldP (either may be nil) touches, and
// how. When both select the same Dataplanes, the classes holding oldP move whole, without a visit
// to their Dataplanes.
func (x *Index) splits(oldP, newP *Policy) []*split {
	bySig := map[string]*split{}
	var order []*split
	get := func(sig string) *split {
		s := bySig[sig]
		if s == nil {
			c, _ := x.classes.Get(sig)
			s = &split{c: c}
			bySig[sig] = s
			order = append(order, s)
		}
		return s
	}
	var holding keySet
	if oldP != nil {
		holding, _ = x.member.Get(oldP)
	}
	if oldP != nil && newP != nil && sameSelection(oldP, newP) {
		for it := holding.Iterator(); !it.Done(); {
			sig, _, _ := it.Next()
			s := get(sig)
			s.selN, s.selOut = s.c.n, s.c.outbounds
		}
	} else if newP != nil {
		selected := x.selectedBy(newP)
		if len(selected) == x.dps.Len() { // every class whole, without a visit to each
			for it := x.classes.Iterator(); !it.Done(); {
				sig, c, _ := it.Next()
				s := get(sig)
				s.selN, s.selOut = c.n, c.outbounds
			}
		} else {
			for _, e := range selected {
				sig, _ := x.policiesSelecting(e)
				s := get(sig)
				s.selN++
				s.sel = append(s.sel, e.dp)
			}
		}
	}
	for it := holding.Iterator(); !it.Done(); {
		sig, _, _ := it.Next()
		get(sig)
	}
	out := order[:0]
	for _, s := range order {
		if s.c == nil {
			continue // cannot happen: every Dataplane is in the class of its signature
		}
		_, held := holding.Get(s.c.sig)
		s.hadOld = oldP != nil && held
		s.base = withoutPolicy(s.c.ordered, oldP)
		s.restN = s.c.n - s.selN
		if s.restN == 0 {
			s.selOut = s.c.outbounds
		} else if s.selOut == nil && s.selN > 0 {
			s.selOut = map[string]int{}
			for _, dp := range s.sel {
				for _, o := range dp.Outbound {
					s.selOut[o[ServiceTag]]++
				}
			}
		}
		switch {
		case s.selN == 0:
			s.restOut = s.c.outbounds
		case s.restN > 0:
			s.restOut = subtract(s.c.outbounds, s.selOut)
		}
		out = append(out, s)
	}
	return out
}

// sameSelection says whether two versions of a policy select the same Dataplanes: the same
// top-level targetRef and the same namespace rule.
func sameSelection(a, b *Policy) bool {
	return a.Group == b.Group && a.Namespace == b.Namespace && a.Role == b.Role &&
		reflect.DeepEqual(a.TargetRef, b.TargetRef)
}

func withoutPolicy(list []*Policy, p *Policy) []*Policy {
	if p == nil || !containsPolicy(list, p) {
		return list
	}
	out := make([]*Policy, 0, len(list)-1)
	for _, q := range list {
		if q != p {
			out = append(out, q)
		}
	}
	return out
}

func containsPolicy(list []*Policy, p *Policy) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
}

func subtract(a, b map[string]int) map[string]int {
	out := make(map[string]int, len(a))
	for k, n := range a {
		if n -= b[k]; n > 0 {
			out[k] = n
		}
	}
	return out
}
