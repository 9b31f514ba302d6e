package engine

// simulateClass merges, for ordered policies, every target a class can meet, and counts each element's
// outcomes. Outbounds to services that no to element names behave alike: one of them stands for
// all. Sources are taken one per group (reps), and the groups the same from entries select are
// merged once, weighted by their number (sourceSets).
func simulateClass(v Version, ordered []*Policy, outbounds map[string]int, reps []Selector) map[elemKey]*counts {
	from, sets := classSources(ordered, reps)
	return simulateSets(v, ordered, outbounds, from, sets)
}

// classSources are the from entries of ordered policies and the sets of groups (reps) they select.
func classSources(ordered []*Policy, reps []Selector) ([]Entry, []sourceSet) {
	from := Entries(ordered, From)
	if len(from) == 0 {
		return nil, nil
	}
	return from, sourceSets(from, reps)
}

// simulateSets is simulateClass given the from entries and their sets (classSources).
func simulateSets(v Version, ordered []*Policy, outbounds map[string]int, from []Entry, sets []sourceSet) map[elemKey]*counts {
	out := map[elemKey]*counts{}
	if len(ordered) == 0 {
		return out
	}
	if entries := EntriesAt(v, ordered, To); len(entries) > 0 && len(outbounds) > 0 {
		for _, t := range outboundTargets(entries, outbounds) {
			count(entries, To, t, 1, out)
		}
	}
	for _, set := range sets {
		count(from, From, set.rep, set.n, out)
	}
	return out
}

// outboundTargets are the outbounds a class with these to entries meets that can differ: every
// service the entries name that the class has outbounds to, and one of the others, which stands
// for them all.
func outboundTargets(entries []Entry, outbounds map[string]int) []Selector {
	named := namedServices(entries)
	var targets []Selector
	for s := range named {
		if outbounds[s] > 0 {
			targets = append(targets, Selector{Service: s})
		}
	}
	for s, n := range outbounds {
		if n > 0 && !named[s] {
			targets = append(targets, Selector{Service: s})
			break
		}
	}
	return targets
}

// namedServices are the services the to entries name: by name, or (MeshService) by labels resolved.
func namedServices(entries []Entry) map[string]bool {
	named := map[string]bool{}
	for i := range entries {
		r := &entries[i].Element.TargetRef
		if r.Kind != Service && r.Kind != MeshService {
			continue
		}
		if r.Name != "" {
			named[r.Name] = true
		}
		for _, s := range r.Services {
			named[s] = true
		}
	}
	return named
}

// sourceSet is the groups of sources (reps) that one set of from entries selects: one of them,
// and how many.
type sourceSet struct {
	rep Selector
	n   int
}

// sourceSets partitions reps by the set of from entries that select each: the merge of the
// entries, which reads only which entries select its target, is the same within a set. A class
// then costs its distinct sets, not the mesh's groups, and the counts stay those of one merge per
// group.
func sourceSets(entries []Entry, reps []Selector) []sourceSet {
	var sets []sourceSet
	at := map[string]int{}
	key := make([]byte, len(entries))
	for _, s := range reps {
		for i := range entries {
			key[i] = 0
			if entries[i].selects(&s) {
				key[i] = 1
			}
		}
		if j, ok := at[string(key)]; ok {
			sets[j].n++
			continue
		}
		at[string(key)] = len(sets)
		sets = append(sets, sourceSet{rep: s, n: 1})
	}
	return sets
}

// hasFrom says whether ordered policies have from entries (then their outcomes depend on the
// groups of sources).
func hasFrom(ordered []*Policy) bool { return len(Entries(ordered, From)) > 0 }

// count merges the entries for one target and adds each element's outcome, n times (the number of
// targets the merge stands for).
func count(entries []Entry, d Direction, t Selector, n int, into map[elemKey]*counts) {
	res := make([]outcome, len(entries))
	newMerger().run(entries, t, res)
	for i, o := range res {
		if !o.selected || (!o.set && len(o.blocked) == 0) {
			continue
		}
		e := &entries[i]
		k := e.key(d)
		c := into[k]
		if c == nil {
			c = &counts{}
			into[k] = c
		}
		c.selected += n
		if o.set {
			c.effective += n
			continue
		}
		if c.by == nil {
			c.by = map[elemKey]int{}
		}
		for _, b := range o.blocked {
			c.by[entries[b].key(d)] += n
		}
	}
}

// addCounts adds (sign 1) or subtracts (sign -1) a class's contribution to per-policy sums.
func addCounts(agg map[*Policy]map[elemKey]*counts, contrib map[elemKey]*counts, sign int) {
	addEach(agg, contrib, func(m map[elemKey]*counts, k elemKey, c *counts) { addCount(m, k, c, sign) })
}

// addEach calls add with each element of contrib and the sums of its policy in agg.
func addEach(agg map[*Policy]map[elemKey]*counts, contrib map[elemKey]*counts, add func(map[elemKey]*counts, elemKey, *counts)) {
	for k, c := range contrib {
		m := agg[k.p]
		if m == nil {
			m = map[elemKey]*counts{}
			agg[k.p] = m
		}
		add(m, k, c)
	}
}

// addCount adds (sign 1) or subtracts (sign -1) c to the sums of element k in m, and drops what
// reaches zero.
func addCount(m map[elemKey]*counts, k elemKey, c *counts, sign int) {
	if a := addTo(m, k, c, sign); a.selected == 0 {
		delete(m, k)
	}
}

// addTo adds (sign 1) or subtracts (sign -1) c to the sums of element k in m, and returns them; a
// blocker whose count reaches zero is dropped, an element is left for the caller.
func addTo(m map[elemKey]*counts, k elemKey, c *counts, sign int) *counts {
	a := m[k]
	if a == nil {
		a = &counts{}
		m[k] = a
	}
	a.selected += sign * c.selected
	a.effective += sign * c.effective
	for b, n := range c.by {
		if a.by == nil {
			a.by = map[elemKey]int{}
		}
		a.by[b] += sign * n
		if a.by[b] == 0 {
			delete(a.by, b)
		}
	}
	return a
}

// copyCounts copies per-element sums, deeply: the copy can be changed without touching m.
func copyCounts(m map[elemKey]*counts) map[elemKey]*counts {
	out := make(map[elemKey]*counts, len(m))
	for k, c := range m {
		cc := *c
		if c.by != nil {
			cc.by = make(map[elemKey]int, len(c.by))
			for b, n := range c.by {
				cc.by[b] = n
			}
		}
		out[k] = &cc
	}
	return out
}
