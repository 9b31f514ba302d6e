package engine

import (
	"sort"
)

// delta is what writing a policy (replacing old, nil for a create; new nil for a delete) changes
// in an Index: the classes whose policies change and the classes that replace them, with their
// outcomes recomputed. Classes the write does not touch are not visited.
type delta struct {
	old []*class
	new []*class
}

func (x *Index) delta(oldP, newP *Policy) delta {
	var d delta
	var reps []Selector
	repsAfter := func() []Selector {
		if reps == nil {
			reps = x.repsAfter(newP)
		}
		return reps
	}
	for _, s := range x.splits(oldP, newP) {
		c := s.c
		d.old = append(d.old, c)
		if s.selN > 0 {
			n := &class{ordered: append(append([]*Policy(nil), s.base...), newP), outbounds: s.selOut}
			sort.SliceStable(n.ordered, func(a, b int) bool { return higher(n.ordered[a], n.ordered[b]) })
			n.contrib = simulateClass(x.version, n.ordered, n.outbounds, repsAfter())
			if x.perms {
				n.perm = classPermissions(x.version, n.ordered)
			}
			d.new = append(d.new, n)
		}
		if s.restN == 0 {
			continue
		}
		u := &class{ordered: s.base, outbounds: s.restOut, perm: c.perm}
		if len(s.base) == len(c.ordered) && sameKeys(u.outbounds, c.outbounds) {
			u.contrib = c.contrib // same policies, same targets: same outcomes
		} else {
			u.contrib = simulateClass(x.version, u.ordered, u.outbounds, repsAfter())
		}
		if x.perms && len(s.base) != len(c.ordered) {
			u.perm = classPermissions(x.version, u.ordered)
		}
		d.new = append(d.new, u)
	}
	return d
}

// repsAfter returns one source per group of the groups after a write of p: the groups that p's
// from elements tell apart split. It visits the sources those elements select (through the tag
// index) and the groups that hold them.
func (x *Index) repsAfter(p *Policy) []Selector {
	mark := map[string]string{} // source → the elements of p selecting it
	for i := range p.From {
		if _, ok := fromKey(&p.From[i].TargetRef); !ok {
			continue // selects every source or none: splits nothing
		}
		for _, s := range x.sourcesSelectedBy(&p.From[i].TargetRef) {
			mark[s] += signature([]int{i})
		}
	}
	if len(mark) == 0 {
		return x.repSources()
	}
	byGroup := map[string][]string{}
	for s := range mark {
		src, _ := x.sources.Get(s)
		byGroup[src.group] = append(byGroup[src.group], s)
	}
	var out []Selector
	sel := func(k string) Selector {
		s, _ := x.sources.Get(k)
		return s.sel
	}
	for it := x.groups.Iterator(); !it.Done(); {
		g, gr, _ := it.Next()
		marked := byGroup[g]
		if len(marked) == 0 {
			out = append(out, sel(gr.rep))
			continue
		}
		parts := map[string]bool{}
		for _, s := range marked {
			if !parts[mark[s]] {
				parts[mark[s]] = true
				out = append(out, sel(s))
			}
		}
		if len(marked) < gr.members.Len() {
			for it := gr.members.Iterator(); !it.Done(); {
				k, _, _ := it.Next()
				if _, ok := mark[k]; !ok {
					out = append(out, sel(k)) // stands for the members no element of p selects
					break
				}
			}
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
	if x.dps.Len() == 0 {
		return capLines(advice, capped)
	}
	if lines, ok := x.meshWrite(&written, advice, capped); ok {
		return lines
	}
	return x.classWrite(written, advice, capped)
}

// classWrite is WriteWarnings recomputing the classes the write changes.
func (x *Index) classWrite(written Policy, advice []string, capped bool) []string {
	oldE, _ := x.pols.Get(written.ID())
	d := x.delta(oldE.p, &written)
	touched := map[*Policy]bool{&written: true}
	for _, list := range [][]*class{d.old, d.new} {
		for _, c := range list {
			for k := range c.contrib {
				touched[k.p] = true
			}
		}
	}
	// The sums after the write are the index's sums with the changed classes' contributions taken
	// out and put in: read through an overlay, so that a write costs what it changes, not the size
	// of the sums it reads (a mesh-wide policy's element is blocked by every service's policy).
	change := map[*Policy]map[elemKey]*counts{}
	for _, c := range d.old {
		addDelta(change, c.contrib, -1)
	}
	for _, c := range d.new {
		addDelta(change, c.contrib, 1)
	}
	same := func(p *Policy) bool {
		return p.Kind == written.Kind && p.Namespace == written.Namespace && p.Name == written.Name
	}
	// Before the write only which warnings there were matters (writeLines keeps a warning of another
	// policy only when it is new); after it, only written's own warnings and those that name it.
	var beforeW []Warning
	was := map[string]bool{}
	var afterL []sortable
	for p := range touched {
		base, _ := x.agg.Get(p)
		if p != &written {
			for _, w := range (sums{base: base}).warnings(p, nil) {
				beforeW = append(beforeW, w.w)
				was[w.w.Ref.Kind+" "+w.w.ID()+" "+w.w.Path] = true
			}
		}
	}
	for p := range touched {
		base, _ := x.agg.Get(p)
		keep := func(r Ref, by func(func(*Policy) bool) bool) bool {
			return same(p) || (!was[r.Kind+" "+r.ID()+" "+r.Path] && by(same))
		}
		afterL = append(afterL, (sums{base: base, change: change[p]}).warnings(p, keep)...)
	}
	afterW := sortWarnings(afterL)
	if x.perms {
		b, a := x.permissionWarnings(d)
		beforeW, afterW = append(beforeW, b...), append(afterW, a...)
	}
	return writeLines(&written, advice, beforeW, afterW, nil, capped)
}

// permissionWarnings gives the rules warnings (ruleshadow.go) of the policies in the classes the
// write changes, before and after it: the sums of the index for their keys, with the old classes'
// contributions taken out and the new ones' put in.
func (x *Index) permissionWarnings(d delta) (before, after []Warning) {
	touched := map[*Policy]bool{}
	for _, list := range [][]*class{d.old, d.new} {
		for _, c := range list {
			for _, p := range c.ordered {
				touched[p] = true
			}
		}
	}
	sums := map[permissionKey]*permCount{}
	for _, c := range d.old {
		for k := range c.perm {
			if _, ok := sums[k]; !ok {
				if a, found := x.perm.Get(k); found {
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
