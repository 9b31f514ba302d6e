package engine

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/benbjohnson/immutable"
)

// A mesh-level policy (top-level targetRef Mesh) has the lowest priority there is: on every
// outbound of every class the to entries of the class's other policies, its head, come first, and
// the mesh-level policies' entries after them; so too on every source for the from entries. A
// write of a mesh-level policy that selects every Dataplane changes only the outcomes of the
// mesh-level entries, and those depend on a class only through what its head has claimed on each
// outbound and each source. So the Index keeps, per class and outbound, and per class and set of
// head from entries that selects some group of sources, the cells its head claims (a leaf path, or
// an object above a leaf, with the element that claimed it), and over the mesh: the shapes (sets
// of cells) with how many (class, outbound) or (class, set) pairs have each, and per head element
// and head policy the cells it claims somewhere. meshwrite.go answers such a write from these,
// whatever the number of classes.

// headTarget is what the head of a class claims on one outbound the class can meet (or, from, on
// the sources one set of its from entries selects): its cells, sorted, and their key; service is
// the outbound's, or "" for the one that stands for the services the head names none of (and for
// the sources).
type headTarget struct {
	service string
	from    bool
	shape   string
	claims  []headClaim
}

// headClaim is a cell and the head element that claimed it. A cell is "L"+path for a leaf and
// "O"+path for an object above a leaf on an outbound, "l"+path and "o"+path on a source
// (cellOf).
type headClaim struct {
	cell string
	by   elemKey
}

// shapeCount is one shape of one variant (the slots of the mesh-level policies of a class, which
// its Dataplanes share): its cells and how many (class, outbound) pairs have it, or for a from
// shape how many (class, set of head from entries) pairs.
type shapeCount struct {
	variant string
	from    bool
	cells   []string
	n       int
}

// claimIndex is the cells the heads' elements and policies claim, and how many class heads lists
// are counted in.
type claimIndex struct {
	elems cellIndex[elemKey]
	pols  cellIndex[*Policy]
	n     int
}

func newClaimIndex() claimIndex {
	return claimIndex{elems: newCellIndex[elemKey](elemOrder{}), pols: newCellIndex[*Policy](policyOrder{})}
}

// variantOf is the variant of a class of ordered policies: the slots of its mesh-level policies.
func (x *Index) variantOf(ordered []*Policy) string {
	var slots []int
	for _, p := range ordered {
		if meshLevel(p) {
			slots = append(slots, x.slotOf(p))
		}
	}
	sort.Ints(slots)
	return signature(slots)
}

// cellOf is the cell of a path claimed as a leaf (or, object, as an object above one) in direction
// d: upper case on the outbounds, lower case on the sources (From, and Kuma's catch-all Rules).
func cellOf(d Direction, object bool, path string) string {
	k := "L"
	switch {
	case object && d == To:
		k = "O"
	case object:
		k = "o"
	case d != To:
		k = "l"
	}
	return k + path
}

// cellObject says whether a cell is an object's.
func cellObject(cell string) bool { return cell[0] == 'O' || cell[0] == 'o' }

// meshLevel says whether a policy's top-level targetRef is the Mesh, the lowest level: every other
// policy that selects a proxy has priority over it (level, kumaLevel).
func meshLevel(p *Policy) bool { return p.TargetRef.Kind == Mesh }

// headsOf returns, per outbound a class of ordered policies with these outbounds can meet (the
// services its head's to entries name, and one of the others), the cells its head claims; then
// those its head's from entries claim on the sources (fromHeads; from and sets are the class's
// from entries and the sets of groups they select, classSources), and the key of the head's sets.
func headsOf(v Version, ordered []*Policy, outbounds map[string]int, from []Entry, sets []sourceSet) ([]headTarget, string) {
	out, key := fromHeads(from, sets)
	if len(outbounds) == 0 {
		return out, key
	}
	entries := EntriesAt(v, headOf(ordered), To)
	named := namedServices(entries)
	for _, t := range outboundTargets(entries, outbounds) {
		m := newMerger()
		m.run(entries, t, nil)
		h := targetOf(m, entries, To)
		if named[t.Service] {
			h.service = t.Service
		}
		out = append(out, h)
	}
	return out, key
}

// headOf is the policies of ordered above the mesh level.
func headOf(ordered []*Policy) []*Policy {
	var head []*Policy
	for _, p := range ordered {
		if !meshLevel(p) {
			head = append(head, p)
		}
	}
	return head
}

// headFrom is the head's part of a class's from entries: those of the policies above the mesh
// level, which come first.
func headFrom(from []Entry) []Entry {
	n := 0
	for n < len(from) && !meshLevel(from[n].Policy) {
		n++
	}
	return from[:n]
}

// fromHeads returns what the head's from entries claim on the sources: one target per distinct
// claims of the sets of them that select some group (headSets), or, when the head has none, one
// without cells (whatever the groups: meshWrite reads the from shapes only when there are
// sources); and the key of those sets.
func fromHeads(from []Entry, sets []sourceSet) ([]headTarget, string) {
	head := headFrom(from)
	if len(head) == 0 {
		return []headTarget{{from: true, shape: fromShape}}, ""
	}
	reps, key := headSets(head, sets)
	return mergeHeads(head, reps), key
}

// headSets returns one source per set of the head's from entries that selects some group, and
// the key of those sets. The sets of all the class's from entries (sets) refine the head's, so one
// source of each stands for the head's sets too.
func headSets(head []Entry, sets []sourceSet) ([]*Selector, string) {
	byKey := map[string]*Selector{}
	key := make([]byte, len(head))
	for si := range sets {
		for i := range head {
			key[i] = '0'
			if head[i].selects(&sets[si].rep) {
				key[i] = '1'
			}
		}
		if _, ok := byKey[string(key)]; !ok {
			byKey[string(key)] = &sets[si].rep
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	reps := make([]*Selector, len(keys))
	for i, k := range keys {
		reps[i] = byKey[k]
	}
	return reps, strings.Join(keys, ",")
}

// mergeHeads merges the head's from entries on each source of reps, and returns the targets of
// distinct claims.
func mergeHeads(head []Entry, reps []*Selector) []headTarget {
	var out []headTarget
	seen := map[string][]int{} // shape → the targets of out with it
	for _, rep := range reps {
		m := newMerger()
		m.run(head, *rep, nil)
		h := targetOf(m, head, From)
		if !slices.ContainsFunc(seen[h.shape], func(j int) bool { return slices.Equal(out[j].claims, h.claims) }) {
			seen[h.shape] = append(seen[h.shape], len(out))
			out = append(out, h)
		}
	}
	return out
}

// fromShape starts the shape of a from target, so that no from shape is a to shape.
const fromShape = "\x02"

// targetOf is the target of the claims a merge of the head's entries in direction d made.
func targetOf(m *merger, entries []Entry, d Direction) headTarget {
	h := headTarget{from: d != To, claims: make([]headClaim, 0, len(m.claims))}
	for path, c := range m.claims {
		h.claims = append(h.claims, headClaim{cell: cellOf(d, c.object, path), by: entries[c.by].key(d)})
	}
	sort.Slice(h.claims, func(i, j int) bool { return h.claims[i].cell < h.claims[j].cell })
	cells := make([]string, len(h.claims))
	for i, c := range h.claims {
		cells[i] = c.cell
	}
	h.shape = strings.Join(cells, "\x00")
	if h.from {
		h.shape = fromShape + h.shape
	}
	return h
}

// headOn is what the head of class c claims on its outbound to service s.
func (c *class) headOn(s string) *headTarget {
	var other *headTarget
	for i := range c.heads {
		if c.heads[i].from {
			continue
		}
		switch c.heads[i].service {
		case s:
			return &c.heads[i]
		case "":
			other = &c.heads[i]
		}
	}
	return other
}

// cellIndex is, per head element (or policy), the cells it claims somewhere, counted over the
// (class, outbound) pairs, and the elements grouped by their set of cells (a bucket, its members
// in priority order), so that the elements claiming any of a few cells are counted, and the first
// of them found, bucket by bucket.
type cellIndex[K comparable] struct {
	cells   immutable.Map[K, map[string]int]
	buckets immutable.Map[string, *bucket[K]]
	cmp     immutable.Comparer[K]
}

// bucket is the members of a cellIndex that claim exactly these cells.
type bucket[K comparable] struct {
	cells   []string
	members immutable.SortedMap[K, struct{}]
}

func newCellIndex[K comparable](cmp immutable.Comparer[K]) cellIndex[K] {
	return cellIndex[K]{cells: newMap[K, map[string]int](), buckets: newMap[string, *bucket[K]](), cmp: cmp}
}

// sigOf is the key of a set of cells.
func sigOf(cells map[string]int) string {
	keys := make([]string, 0, len(cells))
	for c := range cells {
		keys = append(keys, c)
	}
	sort.Strings(keys)
	return strings.Join(keys, "\x00")
}

// update sets the cells of k to cells (none: k leaves), moving k to the bucket of its new set.
// Most events change no one's set of cells (a class left and one of the same heads joined): then
// only the counts are set, or nothing when they stay.
func (ix *cellIndex[K]) update(k K, cells map[string]int) {
	old, had := ix.cells.Get(k)
	if had && len(old) == len(cells) && len(cells) > 0 {
		same, counts := true, true
		for c, n := range cells {
			m, ok := old[c]
			same, counts = same && ok, counts && m == n
		}
		if same && counts {
			return
		}
		if same {
			ix.cells = *ix.cells.Set(k, cells)
			return
		}
	}
	oldSig, newSig := "", sigOf(cells)
	if had {
		oldSig = sigOf(old)
	}
	if had && oldSig != newSig {
		b, _ := ix.buckets.Get(oldSig)
		if m := b.members.Delete(k); m.Len() == 0 {
			ix.buckets = *ix.buckets.Delete(oldSig)
		} else {
			ix.buckets = *ix.buckets.Set(oldSig, &bucket[K]{cells: b.cells, members: *m})
		}
	}
	if len(cells) == 0 {
		ix.cells = *ix.cells.Delete(k)
		return
	}
	ix.cells = *ix.cells.Set(k, cells)
	if had && oldSig == newSig {
		return
	}
	b, ok := ix.buckets.Get(newSig)
	if !ok {
		b = &bucket[K]{members: *immutable.NewSortedMap[K, struct{}](ix.cmp)}
		for c := range cells {
			b.cells = append(b.cells, c)
		}
	}
	ix.buckets = *ix.buckets.Set(newSig, &bucket[K]{cells: b.cells, members: *b.members.Set(k, struct{}{})})
}

// claiming returns how many members claim some cell of q, and the first (at most) n of them in
// priority order.
func (ix *cellIndex[K]) claiming(q map[string]bool, n int) (int, []K) {
	total := 0
	var first []K
	for it := ix.buckets.Iterator(); !it.Done(); {
		_, b, _ := it.Next()
		hit := false
		for _, c := range b.cells {
			if q[c] {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		total += b.members.Len()
		i := 0
		for mi := b.members.Iterator(); !mi.Done() && i < n; i++ {
			k, _, _ := mi.Next()
			first = append(first, k)
		}
	}
	sort.Slice(first, func(i, j int) bool { return ix.cmp.Compare(first[i], first[j]) < 0 })
	if len(first) > n {
		first = first[:n]
	}
	return total, first
}

// claims says whether k claims some cell of q somewhere.
func (ix *cellIndex[K]) claims(k K, q map[string]bool) bool {
	cells, _ := ix.cells.Get(k)
	for c := range cells {
		if q[c] {
			return true
		}
	}
	return false
}

// policyOrder sorts policies highest priority first (sortPolicies), then by ID, then by address:
// two versions of one policy meet in a txn that replaces one by the other, and a sorted set must
// tell them apart (the heap does not move objects).
type policyOrder struct{}

func (policyOrder) Compare(a, b *Policy) int {
	switch {
	case a == b:
		return 0
	case higher(a, b):
		return -1
	case higher(b, a):
		return 1
	}
	if c := strings.Compare(a.GroupKind()+" "+a.ID(), b.GroupKind()+" "+b.ID()); c != 0 {
		return c
	}
	if uintptr(unsafe.Pointer(a)) < uintptr(unsafe.Pointer(b)) {
		return -1
	}
	return 1
}

// elemOrder sorts elements as sortElems does. Like every immutable.Comparer it returns -1, 0 or 1
// only: the sorted map takes any other negative number for "not less".
type elemOrder struct{}

func (elemOrder) Compare(a, b elemKey) int {
	if c := (policyOrder{}).Compare(a.p, b.p); c != 0 {
		return c
	}
	if a.d != b.d {
		return cmp.Compare(a.d, b.d)
	}
	return cmp.Compare(a.i, b.i)
}

// headTxn is a txn's pending changes to the heads' sums: the shapes' counts, and the heads added
// (n > 0) and taken out (n < 0), over every class and per variant. Heads are counted by their list,
// which the classes made from one another share (headsFrom): when a mesh-level policy's event moves
// every class to a new class of the same head, the lists cancel out over every class, and a variant
// whose classes all move to a new one moves whole.
type headTxn struct {
	shapes   map[string]int
	made     map[string]*shapeCount // the shapes new to the index
	all      map[*headTarget]headNet
	variants map[string]map[*headTarget]headNet
}

// headNet is one class heads list, keyed by its first target, and how many times it is added.
type headNet struct {
	heads []headTarget
	n     int
}

type claimTxn struct {
	byElem map[elemKey]map[string]int
	byPol  map[*Policy]map[string]int
}

func newClaimTxn() *claimTxn {
	return &claimTxn{byElem: map[elemKey]map[string]int{}, byPol: map[*Policy]map[string]int{}}
}

func newHeadTxn() headTxn {
	return headTxn{shapes: map[string]int{}, made: map[string]*shapeCount{}, all: map[*headTarget]headNet{},
		variants: map[string]map[*headTarget]headNet{}}
}

// addHeads adds (sign 1) or subtracts (sign -1) the heads of class c to the pending sums.
func (t *txn) addHeads(c *class, sign int) {
	if len(c.heads) == 0 {
		return
	}
	h := &t.heads
	v := h.variants[c.variant]
	if v == nil {
		v = map[*headTarget]headNet{}
		h.variants[c.variant] = v
	}
	k := &c.heads[0]
	h.all[k] = headNet{heads: c.heads, n: h.all[k].n + sign}
	v[k] = headNet{heads: c.heads, n: v[k].n + sign}
	for _, ht := range c.heads {
		key := c.variant + "\x01" + ht.shape
		h.shapes[key] += sign
		if _, ok := t.x.shapes.Get(key); !ok && sign > 0 && h.made[key] == nil {
			sc := &shapeCount{variant: c.variant, from: ht.from}
			for _, cl := range ht.claims {
				sc.cells = append(sc.cells, cl.cell)
			}
			h.made[key] = sc
		}
	}
}

// add adds n times the claims to copies of the cells in ix.
func (ct *claimTxn) add(ix claimIndex, claims []headClaim, n int) {
	for _, c := range claims {
		e, ok := ct.byElem[c.by]
		if !ok {
			old, _ := ix.elems.cells.Get(c.by)
			e = copyCells(old)
			ct.byElem[c.by] = e
		}
		bump(e, c.cell, n)
		p, ok := ct.byPol[c.by.p]
		if !ok {
			old, _ := ix.pols.cells.Get(c.by.p)
			p = copyCells(old)
			ct.byPol[c.by.p] = p
		}
		bump(p, c.cell, n)
	}
}

// apply publishes the pending cells into ix.
func (ct *claimTxn) apply(ix *claimIndex) {
	for k, cells := range ct.byElem {
		ix.elems.update(k, cells)
	}
	for p, cells := range ct.byPol {
		ix.pols.update(p, cells)
	}
}

// applyNet adds the net heads to ix, and returns it with its count of heads lists.
func applyNet(ix claimIndex, net map[*headTarget]headNet) claimIndex {
	ct := newClaimTxn()
	for _, hn := range net {
		if hn.n == 0 {
			continue
		}
		ix.n += hn.n
		for _, ht := range hn.heads {
			ct.add(ix, ht.claims, hn.n)
		}
	}
	ct.apply(&ix)
	return ix
}

func copyCells(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for c, n := range m {
		out[c] = n
	}
	return out
}

func bump(m map[string]int, cell string, n int) {
	if m[cell] += n; m[cell] == 0 {
		delete(m, cell)
	}
}

// finishHeads publishes the pending sums of the heads.
func (t *txn) finishHeads() {
	x := t.x
	for key, d := range t.heads.shapes {
		if d == 0 {
			continue
		}
		sc, ok := x.shapes.Get(key)
		if !ok {
			sc = t.heads.made[key]
		}
		if n := sc.n + d; n > 0 {
			x.shapes = *x.shapes.Set(key, &shapeCount{variant: sc.variant, from: sc.from, cells: sc.cells, n: n})
		} else {
			x.shapes = *x.shapes.Delete(key)
		}
	}
	x.claims = applyNet(x.claims, t.heads.all)
	moved := t.movedVariants()
	for v, net := range t.heads.variants {
		if _, done := moved[v]; done {
			continue
		}
		ix, ok := x.variants.Get(v)
		if !ok {
			ix = newClaimIndex()
		}
		if ix = applyNet(ix, net); ix.n == 0 {
			x.variants = *x.variants.Delete(v)
		} else {
			x.variants = *x.variants.Set(v, ix)
		}
	}
	for from, to := range moved {
		if to == "" {
			continue
		}
		ix, _ := x.variants.Get(from)
		x.variants = *x.variants.Delete(from)
		x.variants = *x.variants.Set(to, ix)
	}
}

// movedVariants finds the variants whose heads all leave for a new variant that gets exactly those:
// from → to, and to → "" (both done by moving the claims whole).
func (t *txn) movedVariants() map[string]string {
	x := t.x
	moved := map[string]string{}
	gaining := map[*headTarget][]string{} // new variants, by the heads lists they gain
	for v, net := range t.heads.variants {
		if _, ok := x.variants.Get(v); ok {
			continue
		}
		for k, hn := range net {
			if hn.n > 0 {
				gaining[k] = append(gaining[k], v)
			}
		}
	}
	for v, net := range t.heads.variants {
		ix, ok := x.variants.Get(v)
		if !ok {
			continue
		}
		left := ix.n
		var first *headTarget
		for k, hn := range net {
			left += hn.n
			if hn.n > 0 {
				left = -1 // gains a list: not a move
				break
			}
			if hn.n < 0 && first == nil {
				first = k
			}
		}
		if left != 0 || first == nil {
			continue
		}
		for _, to := range gaining[first] {
			if _, taken := moved[to]; !taken && opposite(net, t.heads.variants[to]) {
				moved[v], moved[to] = to, ""
				break
			}
		}
	}
	return moved
}

// opposite says whether two nets add and take out the same lists the same number of times.
func opposite(a, b map[*headTarget]headNet) bool {
	n := 0
	for k, hn := range a {
		if hn.n == 0 {
			continue
		}
		n++
		if b[k].n != -hn.n {
			return false
		}
	}
	for _, hn := range b {
		if hn.n != 0 {
			n--
		}
	}
	return n == 0
}
