package mesh

import "sort"

// txn derives the next version of an Index in place of a clone: the classes it touches are copied
// once, and their outcomes recomputed once, at finish. The version the clone was taken from shares
// every untouched part and never changes.
type txn struct {
	x     *Index
	orig  map[string]*class // as in the version started from (nil: a new class)
	dirty map[string]*class // copies being edited
	force map[string]bool   // recompute the outcomes even if the outbound services stay
	aggs  map[*Policy]map[elemKey]*counts
	perms map[permissionKey]*permCount

	groups map[string]int // groups of sources that appeared (1) or vanished (-1)
}

func newTxn(x *Index) *txn {
	return &txn{x: x, orig: map[string]*class{}, dirty: map[string]*class{}, force: map[string]bool{},
		aggs: map[*Policy]map[elemKey]*counts{}, perms: map[permissionKey]*permCount{}, groups: map[string]int{}}
}

// dataplane adds (sign 1) or removes (sign -1) a Dataplane: its indexes, its sources and its place
// in the class of the policies selecting it.
func (t *txn) dataplane(key string, e *dpEntry, sign int) {
	x := t.x
	dp := e.dp
	edit := setAdd
	if sign > 0 {
		x.dps = x.dps.set(x.edit, key, e)
	} else {
		x.dps = x.dps.del(x.edit, key)
		edit = setRemove
	}
	for _, in := range dp.Inbound {
		for k, v := range in {
			x.inTags = edit(x.edit, x.inTags, k+"="+v, key)
		}
		t.source(in, sign)
	}
	x.names = edit(x.edit, x.names, "name="+dp.Name, key)
	for k, v := range dp.Labels {
		x.labels = edit(x.edit, x.labels, k+"="+v, key)
	}
	sig, found := x.policiesSelecting(e)
	c := t.edit(sig, func() []*Policy { return policiesOf(found) })
	c.n += sign
	for _, o := range dp.Outbound {
		s := o[ServiceTag]
		if v := c.outbounds[s] + sign; v > 0 {
			c.outbounds[s] = v
		} else {
			delete(c.outbounds, s)
		}
	}
}

// move adds (sign 1) or takes out (sign -1) n Dataplanes with these outbounds to or from the class
// sig of the policies pols (given in any order; used when the class is new).
func (t *txn) move(sig string, pols []*Policy, n int, outbounds map[string]int, sign int) {
	c := t.edit(sig, func() []*Policy { return pols })
	c.n += sign * n
	for s, k := range outbounds {
		if v := c.outbounds[s] + sign*k; v > 0 {
			c.outbounds[s] = v
		} else {
			delete(c.outbounds, s)
		}
	}
}

// edit returns the copy of class sig being edited, making it (or a new class of the policies pols
// returns) on first use.
func (t *txn) edit(sig string, pols func() []*Policy) *class {
	if c := t.dirty[sig]; c != nil {
		return c
	}
	c := &class{sig: sig}
	if o, ok := t.x.classes.get(sig); ok {
		*c = *o
		c.outbounds = make(map[string]int, len(o.outbounds))
		for s, k := range o.outbounds {
			c.outbounds[s] = k
		}
		t.orig[sig] = o
	} else {
		c.outbounds = map[string]int{}
		c.ordered = append([]*Policy(nil), pols()...)
		sort.SliceStable(c.ordered, func(a, b int) bool { return higher(c.ordered[a], c.ordered[b]) })
	}
	t.dirty[sig] = c
	return c
}

// finish publishes the edited classes: empty ones leave, new ones and those whose outbound services
// changed (or that force names) get their outcomes recomputed, and the sums follow.
func (t *txn) finish() {
	x := t.x
	if t.groupsChanged() {
		for sig, c := range x.classes.all() {
			if c.from {
				t.edit(sig, func() []*Policy { return c.ordered })
				t.force[sig] = true
			}
		}
	}
	for sig, c := range t.dirty {
		o := t.orig[sig]
		if c.n <= 0 {
			if o != nil {
				t.addCounts(o.contrib, -1)
				t.addPerm(o.perm, -1)
				t.member(o, false)
				x.classes = x.classes.del(x.edit, sig)
			}
			continue
		}
		if o == nil {
			c.from = hasFrom(c.ordered)
			if x.perms {
				c.perm = classPermissions(c.ordered)
			}
			t.addPerm(c.perm, 1)
			t.member(c, true)
		}
		if o == nil || t.force[sig] || !sameKeys(o.outbounds, c.outbounds) {
			if o != nil {
				t.addCounts(o.contrib, -1)
			}
			c.contrib = simulateClass(c.ordered, c.outbounds, x.repSources())
			t.addCounts(c.contrib, 1)
		}
		x.classes = x.classes.set(x.edit, sig, c)
	}
	for p, m := range t.aggs {
		if len(m) == 0 {
			x.agg = x.agg.del(x.edit, p)
		} else {
			x.agg = x.agg.set(x.edit, p, m)
		}
	}
	for k, a := range t.perms {
		if a.classes == 0 {
			x.perm = x.perm.del(x.edit, k)
		} else {
			x.perm = x.perm.set(x.edit, k, a)
		}
	}
}

// groupsChanged says whether a group of sources appeared or vanished (not counting one that
// vanished and came back, as when a Dataplane is replaced by one with the same inbounds).
func (t *txn) groupsChanged() bool {
	for _, n := range t.groups {
		if n != 0 {
			return true
		}
	}
	return false
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

// addCounts adds (sign 1) or subtracts (sign -1) a class's contribution to copies of the sums of
// its policies.
func (t *txn) addCounts(contrib map[elemKey]*counts, sign int) {
	for k, c := range contrib {
		m, ok := t.aggs[k.p]
		if !ok {
			old, _ := t.x.agg.get(k.p)
			m = copyCounts(old)
			t.aggs[k.p] = m
		}
		addCount(m, k, c, sign)
	}
}

// addPerm adds (sign 1) or subtracts (sign -1) a class's rules outcomes to copies of the sums.
func (t *txn) addPerm(contrib map[permissionKey]*permCount, sign int) {
	for k, c := range contrib {
		a, ok := t.perms[k]
		if !ok {
			a = &permCount{}
			if old, found := t.x.perm.get(k); found {
				*a = *old
				a.by = make(map[permissionKey]int, len(old.by))
				for b, n := range old.by {
					a.by[b] = n
				}
			}
			t.perms[k] = a
		}
		a.classes += sign * c.classes
		a.shadowed += sign * c.shadowed
		for b, n := range c.by {
			if a.by == nil {
				a.by = map[permissionKey]int{}
			}
			if a.by[b] += sign * n; a.by[b] == 0 {
				delete(a.by, b)
			}
		}
	}
}

// member records (add) or forgets that class c holds its policies.
func (t *txn) member(c *class, add bool) {
	x := t.x
	for _, p := range c.ordered {
		s, _ := x.member.get(p)
		if add {
			s = s.set(x.edit, c.sig, struct{}{})
		} else {
			s = s.del(x.edit, c.sig)
		}
		if s.len() == 0 {
			x.member = x.member.del(x.edit, p)
		} else {
			x.member = x.member.set(x.edit, p, s)
		}
	}
}

// source counts (sign 1) or discounts (sign -1) an inbound's tag set among the sources.
func (t *txn) source(in map[string]string, sign int) {
	x := t.x
	sel := Selector{Service: in[ServiceTag], Tags: in}
	key := sel.String()
	s, ok := x.sources.get(key)
	switch {
	case (sign > 0 && ok) || (sign < 0 && ok && s.n > 1):
		if x.edit != nil && s.own == x.edit {
			s.n += sign
			return
		}
		ns := *s
		ns.n += sign
		ns.own = x.edit
		x.sources = x.sources.set(x.edit, key, &ns)
	case sign > 0:
		ns := &source{sel: sel, n: 1, group: x.groupKey(&sel), own: x.edit}
		x.sources = x.sources.set(x.edit, key, ns)
		for k, v := range in {
			x.srcTags = setAdd(x.edit, x.srcTags, k+"="+v, key)
		}
		t.join(ns.group, key)
	case ok:
		x.sources = x.sources.del(x.edit, key)
		for k, v := range in {
			x.srcTags = setRemove(x.edit, x.srcTags, k+"="+v, key)
		}
		t.leave(s.group, key)
	}
}

// rekey moves a source to the group its from elements now give it.
func (t *txn) rekey(key string) {
	x := t.x
	s, ok := x.sources.get(key)
	if !ok {
		return
	}
	g := x.groupKey(&s.sel)
	if g == s.group {
		return
	}
	t.leave(s.group, key)
	t.join(g, key)
	ns := *s
	ns.group = g
	ns.own = x.edit
	x.sources = x.sources.set(x.edit, key, &ns)
}

func (t *txn) join(g, key string) {
	x := t.x
	gr, ok := x.groups.get(g)
	if !ok {
		gr = &group{rep: key}
		t.groups[g]++
	}
	x.groups = x.groups.set(x.edit, g, &group{members: gr.members.set(x.edit, key, struct{}{}), rep: gr.rep})
}

func (t *txn) leave(g, key string) {
	x := t.x
	gr, ok := x.groups.get(g)
	if !ok {
		return
	}
	members := gr.members.del(x.edit, key)
	if members.len() == 0 {
		x.groups = x.groups.del(x.edit, g)
		t.groups[g]--
		return
	}
	rep := gr.rep
	if rep == key {
		for k := range members.all() {
			rep = k
			break
		}
	}
	x.groups = x.groups.set(x.edit, g, &group{members: members, rep: rep})
}
