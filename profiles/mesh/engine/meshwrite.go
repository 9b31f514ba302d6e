package engine

import "sort"

// headMark stands, in a merge of the tail's entries, for a claim of the head (heads.go).
const headMark = -2

// tailMember says whether a mesh-level policy can sit in the tail of a write meshWrite answers:
// each of its to elements targets the whole Mesh or one service by name (tailItem).
func tailMember(p *Policy) bool {
	if !meshLevel(p) {
		return false
	}
	for i := range p.To {
		if !tailItem(&p.To[i].TargetRef) {
			return false
		}
	}
	return true
}

// tailItem says whether a to item selects every outbound (Mesh) or the outbounds to one service
// (Service, or MeshService by name without a sectionName, as Kuma's tag rules and its resource
// rules both read it): the targets meshWrite merges the tail for.
func tailItem(r *TargetRef) bool {
	switch r.Kind {
	case Mesh:
		return true
	case Service, MeshService:
		return r.Name != "" && r.SectionName == ""
	}
	return false
}

// otherService stands, in a merge of the tail's entries, for the outbounds to the services no
// tail entry names: only the entries on the Mesh select it.
var otherService = Selector{Service: "\x00"}

// tailReady says whether a mesh-level policy is one whose write (or replacement) meshWrite
// answers: a tail member whose from entries (from items, or Kuma's MeshTimeout catch-all rules)
// select every source or the sources of one service by name (fromTail). The index also asks that
// it select every Dataplane of the proxy types it lists or none (reach), so that the write joins
// whole classes (joins).
func tailReady(p *Policy) bool {
	return tailMember(p) && fromTail(p)
}

// reachKind is how many of an index's Dataplanes a policy's namespace rule leaves it.
type reachKind int

const (
	reachAll reachKind = iota
	reachNone
	reachSome
)

// reach says how many of the index's Dataplanes p's namespace rule leaves it (Kuma's consumer and
// workload-owner policies select the Dataplanes of their namespace only, SelectsProxy): all when it
// has none or every Dataplane is in its namespace, none when none is, else some (inNs). A written
// policy that reaches some only would join parts of classes' variants: meshWrite leaves it to the
// classes.
func (x *Index) reach(p *Policy) reachKind {
	if !p.Kuma() || p.Role != RoleConsumer && p.Role != RoleWorkloadOwner {
		return reachAll
	}
	switch n, _ := x.inNs.Get(p.Namespace); {
	case n == 0:
		return reachNone
	case n == x.dps.Len():
		return reachAll
	}
	return reachSome
}

// fromTail says whether every from entry of p targets the Mesh or one service by name (tailItem):
// a written policy's from entries meshWrite merges once per from shape and service they name,
// when no head claims anything on a source (bareFrom).
func fromTail(p *Policy) bool {
	for _, e := range Entries([]*Policy{p}, From) {
		if r := &e.Element.TargetRef; r.Kind != Mesh && !tailItem(r) {
			return false
		}
	}
	return true
}

// fromServices are the services p's from entries name (fromTail).
func fromServices(p *Policy) map[string]bool {
	named := map[string]bool{}
	for _, e := range Entries([]*Policy{p}, From) {
		if r := &e.Element.TargetRef; r.Kind != Mesh {
			named[r.Name] = true
		}
	}
	return named
}

// fromOnMesh says whether every from entry of p targets the Mesh (Kuma's `from: [{targetRef:
// {kind: Mesh}}]`, and its catch-all rules): merged on every source after the head's, once per
// from shape of the heads.
func fromOnMesh(p *Policy) bool {
	for _, e := range Entries([]*Policy{p}, From) {
		if e.Element.TargetRef.Kind != Mesh {
			return false
		}
	}
	return true
}

// tailStat is one tail element's outcome over every (class, outbound) pair, or for a from entry
// every (class, group of sources) pair: whether it selected one with fields to set, whether it set
// a field, the leaves that a head claimed somewhere (with their prefixes) and the tail elements
// that blocked it. A from entry of a tail member keeps its outcome from the index's sums when a
// tail member has from entries not on the Mesh (the write has none): fixed are the elements that
// block it there.
type tailStat struct {
	selected, effective bool
	head                map[string][]string
	heads               map[elemKey]bool // the head elements that block an entry on named services only
	by                  map[elemKey]bool
	fixed               map[elemKey]int
}

// meshWrite answers WriteWarnings for a write of a mesh-level policy that selects every Dataplane
// (tailReady), in a mesh whose mesh-level policies are all tail members, from the heads' sums: it
// merges the tail (the mesh-level policies of a variant, with the write) once per shape of the
// heads, to entries on the to shapes and from entries on the from shapes, and names the head
// elements that block the tail through the cells they claim: over every class for a policy in
// every variant, over its variant's for one in a single variant. Its cost follows the number of
// shapes and mesh-level policies, not of classes (a from item on a service adds the classes whose
// heads' from elements select its sources, meshfrom.go). ok is false when the write or the mesh is not of
// that form, or when the rules of Kuma's MeshTrafficPermissions may change its answer (permsQuiet).
func (x *Index) meshWrite(written *Policy, advice []string, capped bool) (lines []string, ok bool) {
	if x.perms && !x.permsQuiet(written) || !tailReady(written) || x.reach(written) == reachSome {
		return nil, false
	}
	t, ok := x.tailOf(written)
	if !ok {
		return nil, false
	}
	stats := x.tailStats(t)
	same := func(p *Policy) bool {
		return p.Kind == written.Kind && p.Namespace == written.Namespace && p.Name == written.Name
	}
	// Before the write only which warnings there were matters (writeLines keeps a warning of
	// another policy only when it is new); the heads' policies keep theirs, and no warning of
	// theirs can name a mesh-level policy, which sits below them.
	var before []Warning
	was := map[string]bool{}
	for _, p := range t.members {
		base, _ := x.agg.Get(p)
		for _, w := range (sums{base: base}).warnings(p, nil) {
			before = append(before, w.w)
			was[w.w.Ref.Kind+" "+w.w.ID()+" "+w.w.Path] = true
		}
		for k, c := range base {
			if !t.fromShapes && k.d != To && c.selected > 0 {
				stats[k] = &tailStat{selected: true, effective: c.effective > 0, fixed: c.by}
			}
		}
	}
	byPolicy := map[*Policy][]elemKey{}
	for k := range stats {
		byPolicy[k.p] = append(byPolicy[k.p], k)
	}
	var after []sortable
	for _, p := range append(t.members, written) {
		keep := func(r Ref, names bool) bool {
			return p == written || (!was[r.Kind+" "+r.ID()+" "+r.Path] && names)
		}
		after = append(after, tailWarnings(p, t.claims[p], byPolicy[p], stats, same, keep)...)
	}
	afterW := sortWarnings(after)
	more := make([]int, len(after))
	for i := range after {
		more[i] = after[i].more
	}
	return writeLines(written, advice, before, afterW, more, capped), true
}

// permsQuiet says whether, in an index of Kuma's MeshTrafficPermissions, the rules warnings
// (classPermissions) add nothing to a write of written: written has no rules, so it denies no
// allow match and replaces no from items, and no warning of another policy names it; and its own
// from items are replaced nowhere, since the Kuma version merges them with the rules
// (mergesFromWithRules) or no indexed policy has rules. Then its from items are analysed as any
// from entries (Entries leaves a MeshTrafficPermission's rules out), from the heads.
func (x *Index) permsQuiet(written *Policy) bool {
	return len(written.Rules) == 0 && (x.version.mergesFromWithRules() || x.withRules == 0)
}

// permRules says whether p is a Kuma MeshTrafficPermission with rules: one that classPermissions
// reads as replacing the from items of the others on Kuma 2.14.
func permRules(p *Policy) bool {
	return p.Kuma() && p.Kind == KindMeshTrafficPermission && len(p.Rules) > 0
}

// tail is the mesh-level policies a write of a mesh-level policy meets: the index's (members,
// without the written policy's older version) and, per variant of the classes, the to entries of
// its members and the written policy in order; and per policy, the cells of the heads that can
// block it.
type tail struct {
	members []*Policy
	entries map[string][]Entry
	from    map[string][]Entry // per variant, the from entries of its members and the written policy
	// every member's from entries are on the Mesh: their outcomes come from the from shapes
	fromShapes bool
	claims     map[*Policy]claimIndex
	fromNamed  map[string]bool // the services the written policy's from entries name
	plan       *fromPlan       // how the from entries meet those services' sources (fromNamed set)
	named      map[string]bool // the services the to entries name
	services   []string        // named, sorted
}

// tailOf returns the tail of a write of written, or ok false when a mesh-level policy is no tail
// member, or reaches more than one variant and not all of them, or written replaces a policy
// whose write meshWrite would not answer, or written or the policy it replaces has from entries
// and a member has some not on the Mesh, or written has proxyTypes and meshWrite cannot tell which
// classes it joins (joins).
func (x *Index) tailOf(written *Policy) (t tail, ok bool) {
	oldE, _ := x.pols.Get(written.ID())
	if oldE.p != nil && (!tailReady(oldE.p) || x.reach(oldE.p) == reachSome) {
		return t, false
	}
	t.fromShapes = true
	wild, _ := x.polBy.Get(selKey{kind: '*'})
	bySlot := map[int]*Policy{}
	types := map[int]proxyKinds{} // the slots of the mesh-level policies of one proxy type, old's too
	for _, pe := range wild {
		if !meshLevel(pe.p) {
			continue
		}
		if pt := proxyKindsOf(pe.p); pt.sidecar != pt.gateway {
			types[pe.slot] = pt
		}
		if pe.p == oldE.p {
			continue
		}
		if !tailMember(pe.p) {
			return t, false
		}
		t.members = append(t.members, pe.p)
		t.fromShapes = t.fromShapes && fromOnMesh(pe.p)
		bySlot[pe.slot] = pe.p
	}
	if !t.fromShapes && (hasFrom([]*Policy{written}) || oldE.p != nil && hasFrom([]*Policy{oldE.p})) {
		return t, false
	}
	if t.fromNamed = fromServices(written); len(t.fromNamed) > 0 {
		if !t.fromShapes {
			return t, false
		}
		plan, ok := x.planFrom(written, t.fromNamed)
		if !ok {
			return t, false
		}
		t.plan = &plan
	}
	t.named = namedServices(Entries(append([]*Policy{written}, t.members...), To))
	for s := range t.named {
		t.services = append(t.services, s)
	}
	sort.Strings(t.services)
	return t, x.tailVariants(&t, written, bySlot, types)
}

// tailVariants fills in the tail's entries per variant, with written in the variants whose classes
// it joins, and the cells of the heads that can block each member and written: over every class
// for a policy in every variant, over its variant's for one in a single variant. It returns false
// for a policy in several variants but not all, or when written's variants are not known.
func (x *Index) tailVariants(t *tail, written *Policy, bySlot map[int]*Policy, types map[int]proxyKinds) bool {
	t.entries, t.from, t.claims = map[string][]Entry{}, map[string][]Entry{}, map[*Policy]claimIndex{}
	in := map[*Policy][]string{} // the variants each policy is in
	for it := x.shapes.Iterator(); !it.Done(); {
		_, sc, _ := it.Next()
		if _, done := t.entries[sc.variant]; done {
			continue
		}
		var pols []*Policy
		var vt proxyKinds // the variant's one proxy type, if a policy of it says
		for i := 0; i+4 <= len(sc.variant); i += 4 {
			v := sc.variant[i : i+4]
			slot := int(v[0])<<24 | int(v[1])<<16 | int(v[2])<<8 | int(v[3])
			if p := bySlot[slot]; p != nil {
				pols = append(pols, p)
				in[p] = append(in[p], sc.variant)
			}
			if pt, ok := types[slot]; ok {
				vt = pt
			}
		}
		switch x.joins(written, vt) {
		case joinUnknown:
			return false
		case joinYes:
			pols = append(pols, written)
			in[written] = append(in[written], sc.variant)
		}
		sort.SliceStable(pols, func(a, b int) bool { return higher(pols[a], pols[b]) })
		t.entries[sc.variant] = EntriesAt(x.version, pols, To)
		if t.fromShapes {
			t.from[sc.variant] = Entries(pols, From)
		}
	}
	for _, p := range append(t.members, written) {
		switch vs := in[p]; {
		case len(vs) == len(t.entries) || len(vs) == 0: // every variant, or none (no outcome)
			t.claims[p] = x.claims
		case len(vs) == 1:
			t.claims[p], _ = x.variants.Get(vs[0])
		default:
			return false
		}
	}
	return true
}

// proxyKinds are the proxy types a mesh-level policy selects (proxyTypes, both when it lists none).
type proxyKinds struct{ sidecar, gateway bool }

func proxyKindsOf(p *Policy) proxyKinds {
	l := p.TargetRef.ProxyTypes
	if len(l) == 0 {
		return proxyKinds{true, true}
	}
	return proxyKinds{sidecar: contains(l, "Sidecar"), gateway: contains(l, "Gateway")}
}

// join says whether written joins the classes of a variant.
type join int

const (
	joinNo join = iota
	joinYes
	joinUnknown
)

// joins says whether written (tailReady, whose namespace rule leaves it every Dataplane or none,
// reach) joins the classes of a variant whose classes are all of one proxy type when a mesh-level
// policy of it has that type only (vt, zero when none has): it selects every Dataplane of the types
// it lists. It joins none when its namespace holds no Dataplane; else a variant of one type when it
// lists that type; one of either type when it lists both, or when every Dataplane of the mesh is of
// a type it lists; none when no Dataplane is.
func (x *Index) joins(written *Policy, vt proxyKinds) join {
	w := proxyKindsOf(written)
	gateways, all := x.gateways, x.dps.Len()
	switch {
	case x.reach(written) == reachNone:
		return joinNo
	case vt.sidecar != vt.gateway && (vt.sidecar && w.sidecar || vt.gateway && w.gateway):
		return joinYes
	case vt.sidecar != vt.gateway:
		return joinNo
	case w.sidecar && w.gateway, w.sidecar && gateways == 0, w.gateway && gateways == all:
		return joinYes
	case w.sidecar && gateways == all, w.gateway && gateways == 0:
		return joinNo
	}
	return joinUnknown
}

// tailStats merges each variant's tail entries on top of the heads' claims, and sums each
// element's outcomes: on each service the tail names, once per class with outbounds to it (the
// classes such a write changes); on the other outbounds once per shape of the heads, leaving out
// the shapes that only the visited classes' pairs on named services have; and, when the members'
// from entries are all on the Mesh and there are sources, its from entries once per from shape,
// or, when the written policy's name services (fromPlan), once per visited class's pair and per
// from shape the other classes have (mergeShape).
func (x *Index) tailStats(t tail) map[elemKey]*tailStat {
	out := map[elemKey]*tailStat{}
	left := map[string]int{} // shape key → the visited classes' pairs on named services of that shape
	visited := map[string]bool{}
	for _, s := range t.services {
		set, _ := x.outCls.Get(s)
		target := Selector{Service: s}
		for it := set.Iterator(); !it.Done(); {
			sig, _, _ := it.Next()
			c, _ := x.classes.Get(sig)
			h := c.headOn(s)
			cells := make([]string, len(h.claims))
			for i, cl := range h.claims {
				cells[i] = cl.cell
			}
			mergeTail(out, t.entries[c.variant], To, &target, cells, h.claims)
			if !visited[sig] {
				visited[sig] = true
				c.namedPairs(t.named, left)
			}
		}
	}
	sources := t.fromShapes && x.groups.Len() > 0
	if sources && t.plan != nil {
		for _, p := range t.plan.visit {
			mergeTail(out, t.from[p.variant], From, p.target, p.cells, p.claims)
		}
	}
	for it := x.shapes.Iterator(); !it.Done(); {
		key, sc, _ := it.Next()
		switch {
		case sc.from && sources && t.plan != nil:
			t.plan.mergeShape(out, t.from[sc.variant], key, sc)
		case sc.from && sources:
			mergeTail(out, t.from[sc.variant], From, &otherService, sc.cells, nil)
		case !sc.from && sc.n-left[key] > 0:
			mergeTail(out, t.entries[sc.variant], To, &otherService, sc.cells, nil)
		}
	}
	return out
}

// bareFrom says whether no head claims anything on any source: every from shape is without
// cells. Then every (class, group of sources) pair has the same head claims, none, and a tail from
// entry on a service meets them on the sources of its service, whatever the class.
func (x *Index) bareFrom() bool {
	for it := x.shapes.Iterator(); !it.Done(); {
		if _, sc, _ := it.Next(); sc.from && len(sc.cells) > 0 {
			return false
		}
	}
	return true
}

// mergeTail merges the tail entries in direction d that select target after a head that claims
// cells, and adds each entry's outcome to out. A leaf of an entry on the Mesh that the head claims
// is kept in head (the head elements claiming its cells anywhere block it); one of an entry on
// named services is blocked by the element claims names (given for the pairs of one class).
func mergeTail(out map[elemKey]*tailStat, entries []Entry, d Direction, target *Selector, cells []string, claims []headClaim) {
	m := newMerger()
	for j, c := range cells {
		m.claims[c[1:]] = claim{by: headMark - j, object: cellObject(c)}
	}
	for i := range entries {
		e := &entries[i]
		if !e.selects(target) {
			continue
		}
		leaves := e.Element.leaves
		if leaves == nil {
			leaves = flatten(e.Element.Conf)
		}
		if len(leaves) == 0 {
			continue
		}
		everywhere := e.selects(&otherService)
		k := e.key(d)
		s := out[k]
		if s == nil {
			s = &tailStat{head: map[string][]string{}, heads: map[elemKey]bool{}, by: map[elemKey]bool{}}
			out[k] = s
		}
		s.selected = true
		for li := range leaves {
			l := &leaves[li]
			switch by := m.claimer(l); {
			case by == -1:
				m.claim(i, l)
				s.effective = true
			case by <= headMark && everywhere:
				s.head[l.path] = l.prefixes
			case by <= headMark:
				s.heads[claims[headMark-by].by] = true
			default:
				s.by[entries[by].key(d)] = true
			}
		}
	}
}

// namedPairs counts into left the shapes of class c's pairs on the services in named: its head's
// target on each of them the head names, and the one standing for the others when every outbound
// the head names none of is named.
func (c *class) namedPairs(named map[string]bool, left map[string]int) {
	other := false // an outbound neither the head nor the tail names
	for s := range c.outbounds {
		if !named[s] && c.headOn(s).service == "" {
			other = true
			break
		}
	}
	for _, h := range c.heads {
		if h.from {
			continue
		}
		if h.service != "" && named[h.service] || h.service == "" && !other {
			left[c.variant+"\x01"+h.shape]++
		}
	}
}

// headCells are the cells in direction d whose claimers block these leaves somewhere: the leaf's
// path claimed (by a leaf or below it), or a prefix of it claimed by a leaf.
func headCells(into map[string]bool, d Direction, leaves map[string][]string) {
	for path, prefixes := range leaves {
		into[cellOf(d, false, path)], into[cellOf(d, true, path)] = true, true
		for _, p := range prefixes {
			into[cellOf(d, false, p)] = true
		}
	}
}

// tailWarnings are the warnings of tail policy p after the write, as sums.warnings gives them:
// the whole policy when none of its elements sets a field and another policy blocks one,
// else each element that sets none. keep is given each warning's Ref and whether it names the
// written policy. By lists the first head elements (or policies) and every other one; more counts
// the heads left out.
func tailWarnings(p *Policy, ix claimIndex, keys []elemKey, stats map[elemKey]*tailStat, same func(*Policy) bool, keep func(Ref, bool) bool) []sortable {
	effective := false
	var elems []elemKey
	for _, k := range keys {
		switch s := stats[k]; {
		case !s.selected:
		case s.effective:
			effective = true
		default:
			elems = append(elems, k)
		}
	}
	if len(elems) == 0 {
		return nil
	}
	cells := map[string]bool{}
	others := map[*Policy]bool{} // the blockers of other policies besides the heads found by cells
	names := false
	for _, k := range elems {
		s := stats[k]
		headCells(cells, k.d, s.head)
		for b := range s.heads {
			others[b.p] = true
		}
		for b := range s.by {
			if b.p != p {
				others[b.p], names = true, names || same(b.p)
			}
		}
		for b, n := range s.fixed {
			if n > 0 && b.p != p {
				others[b.p] = true
			}
		}
	}
	if effective || len(cells) == 0 && len(others) == 0 {
		return elementWarnings(p, ix, elems, stats, same, keep)
	}
	w := Warning{Ref: policyRef(p, "")}
	if !keep(w.Ref, names) {
		return nil
	}
	total, first := ix.pols.claiming(cells, maxBy)
	for b := range others {
		if ix.pols.claims(b, cells) {
			delete(others, b) // counted among the heads
		}
	}
	for _, b := range first {
		others[b] = true
	}
	for _, b := range sortPolicies(others) {
		w.By = append(w.By, policyRef(b, ""))
	}
	return []sortable{{w: w, k: elemKey{p: p, i: -1}, more: total - len(first)}}
}

// elementWarnings are the warnings of elements of p that select some target and set no field.
func elementWarnings(p *Policy, ix claimIndex, elems []elemKey, stats map[elemKey]*tailStat, same func(*Policy) bool, keep func(Ref, bool) bool) []sortable {
	var out []sortable
	for _, k := range elems {
		s := stats[k]
		w := Warning{Ref: policyRef(p, ElementPath(k.d, k.i))}
		names := false
		by := map[elemKey]bool{}
		for b := range s.by {
			by[b], names = true, names || same(b.p)
		}
		// A from entry kept from the index's sums (fixed) is never kept here: the written policy
		// then has no from entries, so it names no such entry's blocker.
		if !keep(w.Ref, names) {
			continue
		}
		cells := map[string]bool{}
		headCells(cells, k.d, s.head)
		total, first := ix.elems.claiming(cells, maxBy)
		for _, b := range first {
			by[b] = true
		}
		for b := range s.heads {
			by[b] = true
		}
		for _, b := range sortElems(by) {
			w.By = append(w.By, policyRef(b.p, ElementPath(b.d, b.i)))
		}
		out = append(out, sortable{w: w, k: k, more: total - len(first)})
	}
	return out
}
