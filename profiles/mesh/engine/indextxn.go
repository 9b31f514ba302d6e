package engine

import (
	"slices"
	"sort"
)

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

	groups map[string]int   // groups of sources that appeared (1) or vanished (-1)
	made   map[*source]bool // sources made by this txn, changed in place

	members map[*Policy]*moves // the classes leaving and joining the set of each policy whose classes changed
	gone    *Policy            // a policy removed: its sums and classes go at finish
	heads   headTxn
	from    map[string]*class // a class a new one was made from (a policy's write)
	outCls  map[string]*moves // outbound service → the classes leaving and joining its set
}

// moves are the class signatures leaving and joining a set of classes in a txn: each class once,
// since finish publishes or removes each class once.
type moves struct{ leave, join []string }

// moved returns s with the moves made. When every member leaves (as when a mesh-level policy's
// event moves every class to a new signature), or there is none, the set is built anew, in place.
func (m *moves) moved(s keySet) keySet {
	if len(m.leave) == s.Len() {
		return keySetOf(m.join)
	}
	for _, sig := range m.leave {
		s = *s.Delete(sig)
	}
	for _, sig := range m.join {
		s = *s.Set(sig, struct{}{})
	}
	return s
}

// move records class sig leaving (add false) or joining the set under key in pending.
func move[K comparable](pending map[K]*moves, key K, sig string, add bool) {
	m := pending[key]
	if m == nil {
		m = &moves{}
		pending[key] = m
	}
	if add {
		m.join = append(m.join, sig)
	} else {
		m.leave = append(m.leave, sig)
	}
}

func newTxn(x *Index) *txn {
	return &txn{x: x, orig: map[string]*class{}, dirty: map[string]*class{}, force: map[string]bool{},
		aggs: map[*Policy]map[elemKey]*counts{}, perms: map[permissionKey]*permCount{}, groups: map[string]int{},
		made: map[*source]bool{}, members: map[*Policy]*moves{}, heads: newHeadTxn(), from: map[string]*class{},
		outCls: map[string]*moves{}}
}

// dataplane replaces Dataplane key old by e (either nil for none): its indexes (changing only the
// entries that differ), its sources and its place in the class of the policies selecting it.
func (t *txn) dataplane(key string, old, e *dpEntry) {
	x := t.x
	if e != nil {
		x.dps = *x.dps.Set(key, e)
	} else {
		x.dps = *x.dps.Delete(key)
	}
	var ins, names, labels [2][]string // of old, of e
	for i, d := range [2]*dpEntry{old, e} {
		if d != nil {
			ins[i], names[i], labels[i] = d.indexKeys()
		}
	}
	x.inTags = reindex(x.inTags, key, ins)
	x.names = reindex(x.names, key, names)
	x.labels = reindex(x.labels, key, labels)
	if old != nil {
		t.place(old, -1)
		if old.dp.Gateway {
			x.gateways--
		}
		x.countNamespace(old.dp.Namespace, -1)
	}
	if e != nil {
		t.place(e, 1)
		if e.dp.Gateway {
			x.gateways++
		}
		x.countNamespace(e.dp.Namespace, 1)
	}
}

// countNamespace adds d to the Dataplanes of namespace ns (inNs), dropping it at none.
func (x *Index) countNamespace(ns string, d int) {
	if n, _ := x.inNs.Get(ns); n+d > 0 {
		x.inNs = *x.inNs.Set(ns, n+d)
	} else {
		x.inNs = *x.inNs.Delete(ns)
	}
}

// indexKeys are the keys e is indexed under in inTags, names and labels.
func (e *dpEntry) indexKeys() (ins, names, labels []string) {
	for _, in := range e.dp.selectableTags() {
		for k, v := range in {
			ins = append(ins, k+"="+v)
		}
	}
	for k, v := range e.dp.Labels {
		labels = append(labels, k+"="+v)
	}
	return ins, []string{"name=" + e.dp.Name}, labels
}

// place adds (sign 1) or takes out (sign -1) a Dataplane's sources and its place in the class of
// the policies selecting it.
func (t *txn) place(e *dpEntry, sign int) {
	for _, in := range e.dp.Inbound {
		t.source(in, sign)
	}
	t.classify(e, sign)
}

// classify adds (sign 1) or takes out (sign -1) a Dataplane in the class of the policies selecting it.
func (t *txn) classify(e *dpEntry, sign int) {
	x := t.x
	dp := e.dp
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
	if o, ok := t.x.classes.Get(sig); ok {
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
		for it := x.classes.Iterator(); !it.Done(); {
			sig, c, _ := it.Next()
			if c.from {
				t.edit(sig, func() []*Policy { return c.ordered })
				t.force[sig] = true
			}
		}
	}
	for sig, c := range t.dirty {
		t.finishClass(sig, c)
	}
	t.finishHeads()
	t.finishOutbounds()
	t.finishSums()
}

// finishClass publishes edited class c of signature sig: it leaves when empty; a new one, or one
// whose outbound services changed or that force names, gets its outcomes recomputed (and its heads,
// when new or its outbounds changed), and the sums follow.
func (t *txn) finishClass(sig string, c *class) {
	x := t.x
	o := t.orig[sig]
	if c.n <= 0 {
		if o != nil {
			t.addCounts(o.contrib, -1)
			t.addHeads(o, -1)
			t.addPerm(o.perm, -1)
			t.member(o, false)
			t.outbounds(sig, o.outbounds, nil)
			x.classes = *x.classes.Delete(sig)
		}
		return
	}
	if o == nil {
		c.from = hasFrom(c.ordered)
		if x.perms {
			c.perm = classPermissions(x.version, c.ordered)
		}
		t.addPerm(c.perm, 1)
		t.member(c, true)
	}
	if o == nil || t.force[sig] || !sameKeys(o.outbounds, c.outbounds) {
		if o != nil {
			t.addCounts(o.contrib, -1)
		}
		from, sets := classSources(c.ordered, x.repSources())
		c.contrib = simulateSets(x.version, c.ordered, c.outbounds, from, sets)
		t.addCounts(c.contrib, 1)
		if o == nil || !sameKeys(o.outbounds, c.outbounds) {
			if o != nil {
				t.addHeads(o, -1)
			}
			c.heads, c.fromKey = t.headsFrom(sig, c, from, sets)
			c.variant = x.variantOf(c.ordered)
			t.addHeads(c, 1)
			var was map[string]int
			if o != nil {
				was = o.outbounds
			}
			t.outbounds(sig, was, c.outbounds)
		} else {
			t.refreshFromHeads(o, c, from, sets)
		}
	}
	x.classes = *x.classes.Set(sig, c)
}

// refreshFromHeads recomputes the from heads of class c, forced when the groups of sources
// changed, from its from entries and their sets (classSources) when its head has from entries and
// the sets of them that select some group changed (a head without any has one target whatever the
// groups), and publishes them when they differ from those of o, the class it replaces.
func (t *txn) refreshFromHeads(o, c *class, entries []Entry, sets []sourceSet) {
	head := headFrom(entries)
	if len(head) == 0 {
		return
	}
	reps, key := headSets(head, sets)
	if key == o.fromKey {
		return // the same sets: the same claims
	}
	c.fromKey = key
	from := mergeHeads(head, reps)
	var was, to []headTarget
	for _, h := range o.heads {
		if h.from {
			was = append(was, h)
		} else {
			to = append(to, h)
		}
	}
	if sameClaims(was, from) {
		return
	}
	t.addHeads(o, -1)
	c.heads = append(from, to...)
	t.addHeads(c, 1)
}

// finishSums publishes the transaction's sums: the aggregates per policy, the classes each policy
// is a member of (none for a policy gone), and the permissions' counts.
func (t *txn) finishSums() {
	x := t.x
	for p, m := range t.aggs {
		if len(m) == 0 {
			x.agg = *x.agg.Delete(p)
		} else {
			x.agg = *x.agg.Set(p, m)
		}
	}
	if t.gone != nil {
		t.aggs[t.gone] = nil
		x.member = *x.member.Delete(t.gone)
	}
	for p, m := range t.members {
		if p == t.gone {
			continue
		}
		s, ok := x.member.Get(p)
		if !ok {
			s = newMap[string, struct{}]()
		}
		if s = m.moved(s); s.Len() == 0 {
			x.member = *x.member.Delete(p)
		} else {
			x.member = *x.member.Set(p, s)
		}
	}
	for k, a := range t.perms {
		if a.classes == 0 {
			x.perm = *x.perm.Delete(k)
		} else {
			x.perm = *x.perm.Set(k, a)
		}
	}
}

// headsFrom returns the heads of class c: those of the class it was made from when that class
// has the same head (the policies above the mesh level) and the same outbound services, as when a
// mesh-level policy is written and every class gets it; else computed.
func (t *txn) headsFrom(sig string, c *class, from []Entry, sets []sourceSet) ([]headTarget, string) {
	if src := t.from[sig]; src != nil && sameKeys(src.outbounds, c.outbounds) && sameHead(src.ordered, c.ordered) {
		return src.heads, src.fromKey
	}
	return headsOf(t.x.version, c.ordered, c.outbounds, from, sets)
}

// sameClaims says whether two lists of targets claim the same cells by the same elements.
func sameClaims(a, b []headTarget) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i].claims, b[i].claims) {
			return false
		}
	}
	return true
}

// sameHead says whether two lists of ordered policies have the same policies above the mesh level.
func sameHead(a, b []*Policy) bool {
	i, j := 0, 0
	for {
		for i < len(a) && meshLevel(a[i]) {
			i++
		}
		for j < len(b) && meshLevel(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i, j = i+1, j+1
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
			old, _ := t.x.agg.Get(k.p)
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
			if old, found := t.x.perm.Get(k); found {
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

// member records (add) or forgets that class c holds its policies, in t.members until finish.
func (t *txn) member(c *class, add bool) {
	for _, p := range c.ordered {
		move(t.members, p, c.sig, add)
	}
}

// source counts (sign 1) or discounts (sign -1) an inbound's tag set among the sources.
func (t *txn) source(in map[string]string, sign int) {
	x := t.x
	sel := Selector{Service: in[ServiceTag], Tags: in}
	key := sel.String()
	s, ok := x.sources.Get(key)
	switch {
	case (sign > 0 && ok) || (sign < 0 && ok && s.n > 1):
		if t.made[s] {
			s.n += sign
			return
		}
		ns := *s
		ns.n += sign
		t.made[&ns] = true
		x.sources = *x.sources.Set(key, &ns)
	case sign > 0:
		ns := &source{sel: sel, n: 1, group: x.groupKey(&sel)}
		t.made[ns] = true
		x.sources = *x.sources.Set(key, ns)
		for k, v := range in {
			x.srcTags = setAdd(x.srcTags, k+"="+v, key)
		}
		t.join(ns.group, key)
	case ok:
		x.sources = *x.sources.Delete(key)
		for k, v := range in {
			x.srcTags = setRemove(x.srcTags, k+"="+v, key)
		}
		t.leave(s.group, key)
	}
}

// rekey moves a source to the group its from elements now give it.
func (t *txn) rekey(key string) {
	x := t.x
	s, ok := x.sources.Get(key)
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
	t.made[&ns] = true
	x.sources = *x.sources.Set(key, &ns)
}

func (t *txn) join(g, key string) {
	x := t.x
	gr, ok := x.groups.Get(g)
	if !ok {
		gr = &group{members: newMap[string, struct{}](), rep: key}
		t.groups[g]++
	}
	x.groups = *x.groups.Set(g, &group{members: *gr.members.Set(key, struct{}{}), rep: gr.rep})
}

func (t *txn) leave(g, key string) {
	x := t.x
	gr, ok := x.groups.Get(g)
	if !ok {
		return
	}
	members := *gr.members.Delete(key)
	if members.Len() == 0 {
		x.groups = *x.groups.Delete(g)
		t.groups[g]--
		return
	}
	rep := gr.rep
	if rep == key {
		for it := members.Iterator(); !it.Done(); {
			k, _, _ := it.Next()
			rep = k
			break
		}
	}
	x.groups = *x.groups.Set(g, &group{members: members, rep: rep})
}

// outbounds records that class sig's outbound services change from was to now (nil: none).
func (t *txn) outbounds(sig string, was, now map[string]int) {
	for s := range was {
		if _, ok := now[s]; !ok {
			move(t.outCls, s, sig, false)
		}
	}
	for s := range now {
		if _, ok := was[s]; !ok {
			move(t.outCls, s, sig, true)
		}
	}
}

// finishOutbounds publishes the classes' moves between the sets of outCls, each set once.
func (t *txn) finishOutbounds() {
	x := t.x
	for s, m := range t.outCls {
		set, ok := x.outCls.Get(s)
		if !ok {
			set = newMap[string, struct{}]()
		}
		if set = m.moved(set); set.Len() == 0 {
			x.outCls = *x.outCls.Delete(s)
		} else {
			x.outCls = *x.outCls.Set(s, set)
		}
	}
}
