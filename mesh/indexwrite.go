package mesh

import (
	"sort"
)

// delta is what writing a policy (replacing old, nil for a create; new nil for a delete) changes
// in an Index: the classes whose policies change and the classes that replace them, with their
// outcomes recomputed. Classes the write does not touch are not visited.
type delta struct {
	old    []*class
	new    []*pending
	groups []*srcGroup
}

// pending is a class after the write: the selected part (sel) or the rest of its parent.
type pending struct {
	class
	parent   *class
	sel      []int32
	selected bool
}

func (x *Index) delta(oldP, newP *Policy) delta {
	var d delta
	selected := map[*class][]int32{}
	var order []*class
	if newP != nil {
		for _, id := range x.selectedBy(newP) {
			c := x.classOf[id]
			if _, ok := selected[c]; !ok {
				order = append(order, c)
			}
			selected[c] = append(selected[c], id)
		}
	}
	if oldP != nil {
		for _, c := range x.classes {
			if _, ok := selected[c]; !ok && containsPolicy(c.ordered, oldP) {
				selected[c] = nil
				order = append(order, c)
			}
		}
	}
	d.groups = x.groups
	if newP != nil && len(newP.From) > 0 {
		d.groups = x.refine(newP.From)
	}
	for _, c := range order {
		d.old = append(d.old, c)
		base := withoutPolicy(c.ordered, oldP)
		sel := selected[c]
		if len(sel) > 0 {
			s := &pending{parent: c, sel: sel, selected: true}
			s.ordered = append(append([]*Policy(nil), base...), newP)
			sort.SliceStable(s.ordered, func(a, b int) bool { return higher(s.ordered[a], s.ordered[b]) })
			s.outbounds = c.outbounds
			if len(sel) < len(c.dps) {
				s.outbounds = x.outboundsOf(sel)
			}
			s.contrib = x.simulate(s.ordered, s.outbounds, d.groups)
			if x.perm != nil {
				s.perm = classPermissions(s.ordered)
			}
			d.new = append(d.new, s)
		}
		if len(sel) == len(c.dps) {
			continue
		}
		u := &pending{parent: c, sel: sel}
		u.ordered = base
		u.outbounds = c.outbounds
		if len(sel) > 0 {
			u.outbounds = subtract(c.outbounds, x.outboundsOf(sel))
		}
		if len(base) == len(c.ordered) && sameKeys(u.outbounds, c.outbounds) {
			u.contrib = c.contrib // same policies, same targets: same outcomes
		} else {
			u.contrib = x.simulate(u.ordered, u.outbounds, d.groups)
		}
		if x.perm != nil {
			u.perm = c.perm
			if len(base) != len(c.ordered) {
				u.perm = classPermissions(u.ordered)
			}
		}
		d.new = append(d.new, u)
	}
	return d
}

func containsPolicy(list []*Policy, p *Policy) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
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

func (x *Index) outboundsOf(ids []int32) map[string]int {
	out := map[string]int{}
	for _, id := range ids {
		for _, o := range x.dps[id].Outbound {
			out[o[ServiceTag]]++
		}
	}
	return out
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

func sameKeys(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// refine splits the source groups that the written from elements tell apart; it visits the sources
// those elements select (through the tag index) and the groups that hold them.
func (x *Index) refine(from []Element) []*srcGroup {
	mark := map[int32]uint64{}
	for i := range from {
		if from[i].TargetRef.Kind == Mesh {
			continue // selects every source: splits nothing
		}
		for _, s := range x.sourcesSelectedBy(&from[i].TargetRef) {
			mark[s] |= 1 << (uint(i) % 64)
		}
	}
	if len(mark) == 0 {
		return x.groups
	}
	touched := map[*srcGroup]bool{}
	for s := range mark {
		touched[x.groupOf[s]] = true
	}
	out := make([]*srcGroup, 0, len(x.groups)+len(mark))
	for _, g := range x.groups {
		if !touched[g] {
			out = append(out, g)
			continue
		}
		parts := map[uint64]*srcGroup{}
		var keys []uint64
		for _, m := range g.members {
			k := mark[m]
			p := parts[k]
			if p == nil {
				p = &srcGroup{}
				parts[k] = p
				keys = append(keys, k)
			}
			p.members = append(p.members, m)
		}
		if len(keys) == 1 {
			out = append(out, g)
			continue
		}
		for _, k := range keys {
			out = append(out, parts[k])
		}
	}
	return out
}

// WriteWarnings is the package's WriteWarnings over the index: the warnings that concern a write of
// written (replacing the indexed policy of its namespace/name, if any), computed from the classes
// the write changes only. It does not change the index.
func (x *Index) WriteWarnings(written Policy, capped bool) []string {
	if !written.matchesKind(x.kind) {
		return nil
	}
	advice := ruleAdvice(&written)
	if len(x.dps) == 0 {
		return capLines(advice, capped)
	}
	oldP := x.policies[written.ID()]
	d := x.delta(oldP, &written)
	touched := map[*Policy]bool{&written: true}
	for _, c := range d.old {
		for k := range c.contrib {
			touched[k.p] = true
		}
	}
	for _, c := range d.new {
		for k := range c.contrib {
			touched[k.p] = true
		}
	}
	after := map[*Policy]map[elemKey]*counts{}
	for p := range touched {
		m := map[elemKey]*counts{}
		for k, c := range x.agg[p] {
			cc := *c
			cc.by = make(map[elemKey]int, len(c.by))
			for b, n := range c.by {
				cc.by[b] = n
			}
			m[k] = &cc
		}
		after[p] = m
	}
	for _, c := range d.old {
		addCounts(after, c.contrib, -1)
	}
	for _, c := range d.new {
		addCounts(after, c.contrib, 1)
	}
	before, afterW := collect(stats(x.agg, touched, &written)), collect(stats(after, touched, nil))
	if x.perm != nil {
		b, a := x.permissionWarnings(d)
		before, afterW = append(before, b...), append(afterW, a...)
	}
	return writeLines(&written, advice, before, afterW, capped)
}

// permissionWarnings gives the rules warnings (ruleshadow.go) of the policies in the classes the
// write changes, before and after it: the sums of the index for their keys, with the old classes'
// contributions taken out and the new ones' put in.
func (x *Index) permissionWarnings(d delta) (before, after []Warning) {
	touched := map[*Policy]bool{}
	for _, c := range d.old {
		for _, p := range c.ordered {
			touched[p] = true
		}
	}
	for _, c := range d.new {
		for _, p := range c.ordered {
			touched[p] = true
		}
	}
	sums := map[permissionKey]*permCount{}
	for _, c := range d.old {
		for k := range c.perm {
			if _, ok := sums[k]; !ok {
				if a := x.perm[k]; a != nil {
					cp := *a
					cp.by = make(map[permissionKey]int, len(a.by))
					for b, n := range a.by {
						cp.by[b] = n
					}
					sums[k] = &cp
				}
			}
		}
	}
	before = permWarnings(sums, touched)
	for _, c := range d.old {
		addPerm(sums, c.perm, -1)
	}
	for _, c := range d.new {
		addPerm(sums, c.perm, 1)
	}
	return before, permWarnings(sums, touched)
}

// stats turns the summed counts of the policies in touched (but skip) into Shadowed's per-element
// state.
func stats(agg map[*Policy]map[elemKey]*counts, touched map[*Policy]bool, skip *Policy) map[elemKey]*elemStat {
	out := map[elemKey]*elemStat{}
	for p := range touched {
		if p == skip {
			continue
		}
		for k, c := range agg[p] {
			if c.selected <= 0 {
				continue
			}
			s := &elemStat{selected: true, effective: c.effective > 0, by: map[elemKey]bool{}}
			for b, n := range c.by {
				if n > 0 {
					s.by[b] = true
				}
			}
			out[k] = s
		}
	}
	return out
}

// Upsert adds p to the index, or replaces the indexed policy of its namespace/name, updating only
// the classes whose policies change.
func (x *Index) Upsert(p Policy) {
	if !p.matchesKind(x.kind) {
		return
	}
	np := &p
	old := x.policies[p.ID()]
	x.addSlot(np)
	x.commit(x.delta(old, np))
	if old != nil {
		x.slots[x.slot[old]] = nil
		delete(x.slot, old)
		delete(x.agg, old)
	}
	x.policies[p.ID()] = np
}

// Remove deletes the policy namespace/name (ID) from the index.
func (x *Index) Remove(id string) {
	old := x.policies[id]
	if old == nil {
		return
	}
	x.commit(x.delta(old, nil))
	x.slots[x.slot[old]] = nil
	delete(x.slot, old)
	delete(x.agg, old)
	delete(x.policies, id)
}

// commit applies a delta: the old classes leave, the new ones join (merging with a class of the same
// policies, whose outcomes are then recomputed).
func (x *Index) commit(d delta) {
	for _, c := range d.old {
		delete(x.classes, c.sig)
		addCounts(x.agg, c.contrib, -1)
		if x.perm != nil {
			addPerm(x.perm, c.perm, -1)
		}
	}
	x.setGroups(d.groups)
	for _, pc := range d.new {
		ids := pc.sel
		if !pc.selected {
			in := map[int32]bool{}
			for _, id := range pc.sel {
				in[id] = true
			}
			ids = nil
			for _, id := range pc.parent.dps {
				if !in[id] {
					ids = append(ids, id)
				}
			}
		}
		slots := make([]int, 0, len(pc.ordered))
		for _, p := range pc.ordered {
			slots = append(slots, x.slot[p])
		}
		sort.Ints(slots)
		sig := signature(slots)
		c := x.classes[sig]
		if c == nil {
			c = &class{sig: sig, ordered: pc.ordered, outbounds: map[string]int{}, contrib: pc.contrib, perm: pc.perm}
			for k, n := range pc.outbounds {
				c.outbounds[k] = n
			}
			x.classes[sig] = c
			addCounts(x.agg, c.contrib, 1)
			if x.perm != nil {
				addPerm(x.perm, c.perm, 1)
			}
		} else {
			addCounts(x.agg, c.contrib, -1)
			for k, n := range pc.outbounds {
				c.outbounds[k] += n
			}
			c.contrib = x.simulate(c.ordered, c.outbounds, x.groups)
			addCounts(x.agg, c.contrib, 1)
		}
		c.dps = append(c.dps, ids...)
		for _, id := range ids {
			x.classOf[id] = c
		}
	}
}
