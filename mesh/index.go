package mesh

import (
	"sort"
	"strings"
)

// Index holds one mesh's policies of one kind and its Dataplanes, prepared so that the review of a
// policy write costs what the write changes rather than what the mesh holds:
//
//   - Dataplanes are indexed by their inbounds' tags (kuma.io/service among them), names and labels,
//     so a write visits only the Dataplanes its top-level targetRef can select;
//   - Dataplanes selected by the same policies form one class: they see the same ordered policies,
//     and a class's outbounds are the union of its Dataplanes' (counted, so a class can be split);
//   - the shadowing outcome of every element is kept per class and summed per element, so a write
//     recomputes only the classes whose policies it changes, and only their elements' results.
//
// Build it off the request path (NewIndex) and keep it current with Upsert and Remove; WriteWarnings
// only reads it, and may run concurrently with other readers, not with Upsert or Remove.
type Index struct {
	kind     string
	policies map[string]*Policy // by ID
	slot     map[*Policy]int    // a stable number per policy, for class signatures
	nextSlot int
	slots    []*Policy // slot → policy

	dps     []Dataplane
	inTags  tagIndex // inbound tags "k=v" → Dataplanes
	names   tagIndex // "name" → Dataplanes
	labels  tagIndex // metadata labels "k=v" → Dataplanes
	classOf []*class

	classes map[string]*class // by signature

	sources []Selector
	srcTags tagIndex    // source tags "k=v" → sources
	groups  []*srcGroup // sources that every indexed from element treats alike
	groupOf []*srcGroup // source → its group
	agg     map[*Policy]map[elemKey]*counts

	// Kuma's MeshTrafficPermissions only (else nil): the void allow matches and from policies of the
	// rules (ruleshadow.go), summed over the classes like agg.
	perm map[permissionKey]*permCount
}

// class is the Dataplanes selected by the same policies.
type class struct {
	sig       string
	ordered   []*Policy
	dps       []int32
	outbounds map[string]int // service → number of (Dataplane, outbound) pairs
	contrib   map[elemKey]*counts
	perm      map[permissionKey]*permCount // classPermissions(ordered), when the index keeps perm
}

// srcGroup is the sources of inbound traffic that the indexed from elements cannot tell apart.
type srcGroup struct {
	members []int32
}

// counts is one element's outcomes summed over the (class, target) pairs that select it: how many
// merges set one of its fields, how many selected it with fields to set, and who blocked it.
type counts struct {
	selected, effective int
	by                  map[elemKey]int
}

// tagIndex maps "k=v" keys to ids, in insertion order.
type tagIndex map[string][]int32

func (t tagIndex) add(id int32, tags map[string]string) {
	for k, v := range tags {
		key := k + "=" + v
		t[key] = append(t[key], id)
	}
}

// candidates returns the ids carrying every tag (a superset when a list is shared: callers check
// each), or all = true when tags is empty.
func (t tagIndex) candidates(tags map[string]string) (ids []int32, all bool) {
	if len(tags) == 0 {
		return nil, true
	}
	first := true
	for k, v := range tags {
		l := t[k+"="+v]
		if first || len(l) < len(ids) {
			ids, first = l, false
		}
	}
	return ids, false
}

// NewIndex indexes the policies of kind ("Kind" or "Kind.group") among policies and the Dataplanes.
// It copies the policies it keeps; the Dataplanes are shared and must not change.
func NewIndex(kind string, policies []Policy, dataplanes []Dataplane) *Index {
	x := &Index{kind: kind, policies: map[string]*Policy{}, slot: map[*Policy]int{}, dps: dataplanes,
		inTags: tagIndex{}, names: tagIndex{}, labels: tagIndex{}, srcTags: tagIndex{},
		classes: map[string]*class{}, agg: map[*Policy]map[elemKey]*counts{}}
	for i := range policies {
		if policies[i].matchesKind(kind) {
			p := policies[i]
			x.policies[p.ID()] = &p
			x.addSlot(&p)
		}
	}
	for i := range dataplanes {
		dp := &dataplanes[i]
		id := int32(i)
		for _, in := range dp.Inbound {
			x.inTags.add(id, in)
		}
		x.names.add(id, map[string]string{"name": dp.Name})
		x.labels.add(id, dp.Labels)
	}
	x.sources = Sources(dataplanes)
	for i := range x.sources {
		x.srcTags.add(int32(i), x.sources[i].Tags)
	}
	x.setGroups(x.groupSources())
	// Signatures: which policies select each Dataplane.
	sel := make([][]int, len(dataplanes))
	for _, p := range x.sortedPolicies() {
		for _, id := range x.selectedBy(p) {
			sel[id] = append(sel[id], x.slot[p])
		}
	}
	x.classOf = make([]*class, len(dataplanes))
	for i := range dataplanes {
		sig := signature(sel[i])
		c := x.classes[sig]
		if c == nil {
			c = &class{sig: sig, outbounds: map[string]int{}}
			for _, s := range sel[i] {
				c.ordered = append(c.ordered, x.bySlot(s))
			}
			sort.SliceStable(c.ordered, func(a, b int) bool { return higher(c.ordered[a], c.ordered[b]) })
			x.classes[sig] = c
		}
		c.dps = append(c.dps, int32(i))
		for _, o := range dataplanes[i].Outbound {
			c.outbounds[o[ServiceTag]]++
		}
		x.classOf[i] = c
	}
	if g, k, _ := strings.Cut(kind, "."); g == KindMeshTrafficPermission && k == KumaGroup {
		x.perm = map[permissionKey]*permCount{}
	}
	for _, c := range x.classes {
		c.contrib = x.simulate(c.ordered, c.outbounds, x.groups)
		addCounts(x.agg, c.contrib, 1)
		if x.perm != nil {
			c.perm = classPermissions(c.ordered)
			addPerm(x.perm, c.perm, 1)
		}
	}
	return x
}

func (x *Index) sortedPolicies() []*Policy {
	out := make([]*Policy, 0, len(x.policies))
	for _, p := range x.policies {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return x.slot[out[i]] < x.slot[out[j]] })
	return out
}

func (x *Index) bySlot(s int) *Policy { return x.slots[s] }

func (x *Index) addSlot(p *Policy) {
	x.slot[p] = x.nextSlot
	x.slots = append(x.slots, p)
	x.nextSlot++
}

func (x *Index) setGroups(groups []*srcGroup) {
	x.groups = groups
	if x.groupOf == nil {
		x.groupOf = make([]*srcGroup, len(x.sources))
	}
	for _, g := range groups {
		for _, m := range g.members {
			x.groupOf[m] = g
		}
	}
}

// signature encodes a sorted list of policy slots.
func signature(slots []int) string {
	var b strings.Builder
	for _, s := range slots {
		b.WriteByte(byte(s >> 24))
		b.WriteByte(byte(s >> 16))
		b.WriteByte(byte(s >> 8))
		b.WriteByte(byte(s))
	}
	return b.String()
}

// selectedBy returns the Dataplanes p's top-level targetRef selects, visiting only the candidates
// the indexes give for its kind.
func (x *Index) selectedBy(p *Policy) []int32 {
	var cand []int32
	all := false
	r := &p.TargetRef
	switch r.Kind {
	case Service, MeshService:
		cand = x.inTags[ServiceTag+"="+r.Name]
	case ServiceSubset, MeshServiceSubset:
		tags := map[string]string{ServiceTag: r.Name}
		for k, v := range r.Tags {
			tags[k] = v
		}
		cand, _ = x.inTags.candidates(tags)
	case MeshSubset:
		cand, all = x.inTags.candidates(r.Tags)
	case Proxy:
		cand = x.names["name="+r.Name]
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			cand, _ = x.labels.candidates(r.Labels)
		case r.Name != "":
			cand = x.names["name="+r.Name]
		default:
			all = true
		}
	case Mesh:
		all = true
	}
	var out []int32
	seen := map[int32]bool{}
	check := func(id int32) {
		if !seen[id] && p.SelectsProxy(&x.dps[id]) {
			seen[id] = true
			out = append(out, id)
		}
	}
	if all {
		for i := range x.dps {
			check(int32(i))
		}
		return out
	}
	for _, id := range cand {
		check(id)
	}
	return out
}

// groupSources splits the sources by which indexed from elements select them.
func (x *Index) groupSources() []*srcGroup {
	keys := make([][]byte, len(x.sources))
	n := 0
	for _, p := range x.sortedPolicies() {
		for i := range p.From {
			for _, s := range x.sourcesSelectedBy(&p.From[i].TargetRef) {
				keys[s] = append(keys[s], byte(n), byte(n>>8), byte(n>>16))
			}
			n++
		}
	}
	byKey := map[string]*srcGroup{}
	var out []*srcGroup
	for i := range x.sources {
		g := byKey[string(keys[i])]
		if g == nil {
			g = &srcGroup{}
			byKey[string(keys[i])] = g
			out = append(out, g)
		}
		g.members = append(g.members, int32(i))
	}
	return out
}

// sourcesSelectedBy returns the sources an element targetRef selects, through the tag index.
func (x *Index) sourcesSelectedBy(r *TargetRef) []int32 {
	var cand []int32
	all := false
	switch r.Kind {
	case Mesh:
		all = true
	case Service, MeshService:
		cand = x.srcTags[ServiceTag+"="+r.Name]
	case ServiceSubset, MeshServiceSubset:
		cand = x.srcTags[ServiceTag+"="+r.Name]
	case MeshSubset:
		cand, all = x.srcTags.candidates(r.Tags)
	}
	var out []int32
	if all {
		for i := range x.sources {
			if r.Selects(&x.sources[i]) {
				out = append(out, int32(i))
			}
		}
		return out
	}
	for _, id := range cand {
		if r.Selects(&x.sources[id]) {
			out = append(out, id)
		}
	}
	return out
}

// simulate merges, for ordered policies, every target a class can meet, and counts each element's
// outcomes. Outbounds to services that no to element names behave alike: one of them stands for
// all. Sources are taken one per group.
func (x *Index) simulate(ordered []*Policy, outbounds map[string]int, groups []*srcGroup) map[elemKey]*counts {
	out := map[elemKey]*counts{}
	if len(ordered) == 0 {
		return out
	}
	if entries := Entries(ordered, To); len(entries) > 0 && len(outbounds) > 0 {
		named := map[string]bool{}
		for i := range entries {
			if r := &entries[i].Element.TargetRef; r.Name != "" && (r.Kind == Service || r.Kind == MeshService) {
				named[r.Name] = true
			}
		}
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
		for _, t := range targets {
			count(entries, To, t, out)
		}
	}
	if entries := Entries(ordered, From); len(entries) > 0 {
		for _, g := range groups {
			if len(g.members) > 0 {
				count(entries, From, x.sources[g.members[0]], out)
			}
		}
	}
	return out
}

// count merges the entries for one target and adds each element's outcome.
func count(entries []Entry, d Direction, t Selector, into map[elemKey]*counts) {
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
		c.selected++
		if o.set {
			c.effective++
			continue
		}
		if c.by == nil {
			c.by = map[elemKey]int{}
		}
		for _, b := range o.blocked {
			c.by[entries[b].key(d)]++
		}
	}
}

// addCounts adds (sign 1) or subtracts (sign -1) a class's contribution to per-policy sums.
func addCounts(agg map[*Policy]map[elemKey]*counts, contrib map[elemKey]*counts, sign int) {
	for k, c := range contrib {
		m := agg[k.p]
		if m == nil {
			m = map[elemKey]*counts{}
			agg[k.p] = m
		}
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
		if a.selected == 0 {
			delete(m, k)
		}
	}
}
