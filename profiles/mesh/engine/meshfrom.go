package engine

import "sort"

// A written mesh-level from item on a service by name meets, in each class, the groups of sources
// of that service, with whatever the class's head claims there. fromPlan finds them without a
// visit to every class: a class whose head has no from element selecting a source of a named
// service (none of its keyed elements does, and it has no others) claims nothing on those sources,
// so its pairs there are one per variant on the from shape without cells; the few classes whose
// heads do select some are visited, merged group by group as the recomputation merges them.

// fromPlan is how meshWrite meets the sources of the services a written policy's from items name.
type fromPlan struct {
	visit []fromPair      // the visited classes' (class, target) pairs, deduplicated per class
	left  map[string]int  // shape key → the visited classes' from targets of that shape
	bare  map[string]bool // variant → whether its from shape without cells has non-named pairs
	named []*Selector     // the services named that have sources
	other bool            // some source is of no service named
}

// fromPair is one visited class's merge target: the tail's from entries of its variant after the
// head's claims on a group of sources.
type fromPair struct {
	variant string
	target  *Selector
	cells   []string
	claims  []headClaim
}

// headsKeyed says whether every from element of the policies above the mesh level selects some
// sources only (fromKey: by service or tags) and none has Kuma's rules: then a head claims
// nothing on the sources none of its from elements selects.
func (x *Index) headsKeyed() bool {
	for it := x.pols.Iterator(); !it.Done(); {
		_, pe, _ := it.Next()
		if meshLevel(pe.p) {
			continue
		}
		if len(pe.p.Rules) > 0 {
			return false
		}
		for i := range pe.p.From {
			if _, ok := fromKey(&pe.p.From[i].TargetRef); !ok {
				return false
			}
		}
	}
	return true
}

// fromRefsSelecting are the indexed from elements keyed by service or tags that select source s.
func (x *Index) fromRefsSelecting(s *Selector) []fromRef {
	var refs []fromRef
	visit := func(k selKey) {
		l, _ := x.fromBy.Get(k)
		for _, f := range l {
			if f.p.From[f.i].TargetRef.Selects(s) {
				refs = append(refs, f)
			}
		}
	}
	visit(selKey{kind: 's', k: s.service()})
	for k, v := range s.Tags {
		visit(selKey{'t', k, v})
	}
	return refs
}

// headClassesOf are the signatures of the classes whose head (a policy above the mesh level) has
// a from element selecting one of these sources.
func (x *Index) headClassesOf(sources []*Selector) map[string]bool {
	out := map[string]bool{}
	seen := map[*Policy]bool{}
	for _, s := range sources {
		for _, f := range x.fromRefsSelecting(s) {
			if meshLevel(f.p) || seen[f.p] {
				continue
			}
			seen[f.p] = true
			set, _ := x.member.Get(f.p)
			for it := set.Iterator(); !it.Done(); {
				sig, _, _ := it.Next()
				out[sig] = true
			}
		}
	}
	return out
}

// planFrom returns how meshWrite meets the sources of the services named, or false when the
// heads may claim something on sources no from element of theirs names, or when it cannot tell
// that the sources of the other services meet a head without claims somewhere.
func (x *Index) planFrom(written *Policy, named map[string]bool) (fromPlan, bool) {
	var plan fromPlan
	services := make([]string, 0, len(named))
	for s := range named {
		services = append(services, s)
	}
	sort.Strings(services)
	var mine []*Selector // the sources of the services named
	for _, s := range services {
		set, _ := x.srcTags.Get(ServiceTag + "=" + s)
		n := len(mine)
		for it := set.Iterator(); !it.Done(); {
			k, _, _ := it.Next()
			if src, ok := x.sources.Get(k); ok && src.sel.service() == s {
				mine = append(mine, &src.sel)
			}
		}
		if len(mine) > n {
			plan.named = append(plan.named, &Selector{Service: s})
		}
	}
	plan.other = x.sources.Len() > len(mine)
	if x.groups.Len() == 0 {
		return plan, true
	}
	if !x.bareFrom() && !x.headsKeyed() {
		return plan, false
	}
	visit := x.headClassesOf(mine)
	plan.left = map[string]int{}
	var reps []Selector
	if len(visit) > 0 {
		reps = x.repsAfter(written)
	}
	sigs := make([]string, 0, len(visit))
	for sig := range visit {
		sigs = append(sigs, sig)
	}
	sort.Strings(sigs)
	for _, sig := range sigs {
		c, _ := x.classes.Get(sig)
		for _, h := range c.heads {
			if h.from {
				plan.left[c.variant+"\x01"+h.shape]++
			}
		}
		plan.visit = append(plan.visit, classPairs(c, reps, named)...)
	}
	plan.bare = map[string]bool{}
	return plan, x.otherBare(&plan, visit, named)
}

// classPairs merges class c's head from entries on each group of sources (reps), once per set of
// the entries selecting it and whether it is of a named service, and returns the distinct targets.
func classPairs(c *class, reps []Selector, named map[string]bool) []fromPair {
	head := headFrom(Entries(c.ordered, From))
	seen := map[string]bool{}
	var out []fromPair
	key := make([]byte, len(head)+1)
	for ri := range reps {
		rep := &reps[ri]
		for i := range head {
			key[i] = '0'
			if head[i].selects(rep) {
				key[i] = '1'
			}
		}
		target := &otherService
		key[len(head)] = '0'
		if s := rep.service(); named[s] {
			target, key[len(head)] = &Selector{Service: s}, '1'
		}
		k := string(key)
		if named[rep.service()] {
			k += rep.service()
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		m := newMerger()
		m.run(head, *rep, nil)
		h := targetOf(m, head, From)
		cells := make([]string, len(h.claims))
		for i, cl := range h.claims {
			cells[i] = cl.cell
		}
		out = append(out, fromPair{variant: c.variant, target: target, cells: cells, claims: h.claims})
	}
	return out
}

// otherBare fills in, per variant, whether the classes not visited have a pair without head claims
// on a source of no named service: true when some such group is selected by no from element of
// the heads of some class of the variant not visited. It looks at a few groups and returns false
// when none shows it for every variant that needs it.
func (x *Index) otherBare(plan *fromPlan, visit map[string]bool, named map[string]bool) bool {
	need := map[string]int{} // variant → its classes not visited with a from target without cells
	for it := x.shapes.Iterator(); !it.Done(); {
		key, sc, _ := it.Next()
		if sc.from && len(sc.cells) == 0 {
			if n := sc.n - plan.left[key]; n > 0 {
				need[sc.variant] = n
			}
		}
	}
	if len(need) == 0 || !plan.other {
		return true
	}
	if len(plan.named) == 0 || x.bareFrom() { // the classes not visited meet every source without claims
		for v := range need {
			plan.bare[v] = true
		}
		return true
	}
	tries := 0
	for it := x.groups.Iterator(); !it.Done() && tries < 8; {
		_, g, _ := it.Next()
		src, _ := x.sources.Get(g.rep)
		if named[src.sel.service()] {
			continue // may also hold sources of a named service: not a witness
		}
		tries++
		holding := map[string]int{} // variant → classes not visited whose head selects the group
		for sig := range x.headClassesOf([]*Selector{&src.sel}) {
			if c, _ := x.classes.Get(sig); !visit[sig] {
				holding[c.variant]++
			}
		}
		all := true
		for v, n := range need {
			if n > holding[v] {
				plan.bare[v] = true
			} else if !plan.bare[v] {
				all = false
			}
		}
		if all {
			return true
		}
	}
	return false
}

// mergeShape merges the tail's from entries on from shape sc (key) for the pairs of the classes
// not visited: on a shape with cells, sources of no named service (a class not visited claims
// nothing on the named ones); on the shape without cells, the sources of each named service, and
// the others where otherBare found some.
func (plan *fromPlan) mergeShape(out map[elemKey]*tailStat, entries []Entry, key string, sc *shapeCount) {
	if sc.n-plan.left[key] <= 0 {
		return
	}
	if len(sc.cells) > 0 {
		mergeTail(out, entries, From, &otherService, sc.cells, nil)
		return
	}
	for _, s := range plan.named {
		mergeTail(out, entries, From, s, nil, nil)
	}
	if plan.bare[sc.variant] {
		mergeTail(out, entries, From, &otherService, nil, nil)
	}
}
