package mesh

import (
	"sort"
	"strings"
	"sync"
)

// Index holds one mesh's policies of one kind and its Dataplanes, prepared so that the review of a
// policy write, and an update for a policy or Dataplane event, cost what the write or event changes
// rather than what the mesh holds:
//
//   - Dataplanes are indexed by their inbounds' tags (kuma.io/service among them), names and labels,
//     so a write visits only the Dataplanes its top-level targetRef can select; policies are indexed
//     by what their top-level targetRef names, so a Dataplane event finds the policies selecting it;
//   - Dataplanes selected by the same policies form one class: they see the same ordered policies,
//     and a class's outbounds are the union of its Dataplanes' (counted, so a class can be split);
//   - the shadowing outcome of every element is kept per class and summed per element, so a write
//     recomputes only the classes whose policies it changes, and only their elements' results.
//
// An Index is immutable once built and safe for concurrent readers. Build it off the request path
// (NewIndex) and derive the next version per event with WithDataplane and WithPolicy: they share
// every unchanged part with the version they start from (persistent maps, classes copied when
// touched), which stays valid and unchanged for its readers.
type Index struct {
	kind     string
	nextSlot int
	pols     pmap[string, polEntry]   // by ID
	polBy    pmap[string, []polEntry] // selection key (polKey) → policies whose targetRef may select it
	fromBy   pmap[string, []fromRef]  // source key (fromKey) → from elements that may select it

	dps    pmap[string, *Dataplane] // by "namespace/name"
	inTags pmap[string, keySet]     // inbound tags "k=v" → Dataplanes
	names  pmap[string, keySet]     // "name=NAME" → Dataplanes
	labels pmap[string, keySet]     // metadata labels "k=v" → Dataplanes

	classes pmap[string, *class]  // by signature
	member  pmap[*Policy, keySet] // policy → signatures of the classes holding it

	sources pmap[string, *source] // by Selector.String()
	srcTags pmap[string, keySet]  // source tags "k=v" → sources
	groups  pmap[string, *group]  // by the from elements that select their sources (groupKey)

	agg pmap[*Policy, map[elemKey]*counts] // per policy, the sum of the classes' contrib

	// Kuma's MeshTrafficPermissions only (perms set): the void allow matches and from policies of
	// the rules (ruleshadow.go), summed over the classes like agg.
	perms bool
	perm  pmap[permissionKey, *permCount]

	reps *repCache // one source per group, computed on first use
	edit *pedit    // while the index is being built or updated, before it is published; else nil
}

// polEntry is an indexed policy and its slot, a number that stays with it for class signatures.
type polEntry struct {
	p    *Policy
	slot int
}

// fromRef is from element i of an indexed policy.
type fromRef struct {
	p       *Policy
	slot, i int
}

// source is one distinct inbound tag set of the mesh, the number of inbounds carrying it, and its
// group.
type source struct {
	sel   Selector
	n     int
	group string
}

// group is the sources that every indexed from element treats alike, and one of them.
type group struct {
	members keySet
	rep     string
}

type repCache struct {
	once sync.Once
	sels []Selector
}

// class is the Dataplanes selected by the same policies. A class published in an Index never
// changes: an update replaces it.
type class struct {
	sig       string
	ordered   []*Policy
	n         int            // Dataplanes
	outbounds map[string]int // service → number of (Dataplane, outbound) pairs
	from      bool           // the policies have from entries
	contrib   map[elemKey]*counts
	perm      map[permissionKey]*permCount // classPermissions(ordered), when the index keeps perm
}

// counts is one element's outcomes summed over the (class, target) pairs that select it: how many
// merges set one of its fields, how many selected it with fields to set, and who blocked it.
type counts struct {
	selected, effective int
	by                  map[elemKey]int
}

// NewIndex indexes the policies of kind ("Kind" or "Kind.group") among policies and the Dataplanes
// (keyed "namespace/name", as WithDataplane takes them; of two with one key the later is kept). It
// copies the policies it keeps; the Dataplanes are shared and must not change.
func NewIndex(kind string, policies []Policy, dataplanes []Dataplane) *Index {
	x := &Index{kind: kind, reps: &repCache{}, edit: new(pedit)}
	if g, k, _ := strings.Cut(kind, "."); g == KindMeshTrafficPermission && k == KumaGroup {
		x.perms = true
	}
	for i := range policies {
		if policies[i].matchesKind(kind) {
			p := policies[i]
			if old, ok := x.pols.get(p.ID()); ok {
				x.unindexPolicy(old)
			}
			x.indexPolicy(&p)
		}
	}
	t := newTxn(x)
	for i := range dataplanes {
		dp := &dataplanes[i]
		key := DataplaneKey(dp)
		if old, ok := x.dps.get(key); ok {
			t.dataplane(key, old, -1)
		}
		t.dataplane(key, dp, 1)
	}
	t.finish()
	x.edit = nil
	return x
}

// DataplaneKey is the key of a Dataplane in an Index: "namespace/name".
func DataplaneKey(dp *Dataplane) string { return dp.Namespace + "/" + dp.Name }

// clone returns a shallow copy of x to derive the next version from.
func (x *Index) clone() *Index {
	y := *x
	y.reps = &repCache{}
	y.edit = new(pedit)
	return &y
}

// repSources returns one source per group: the sources a class's from entries are merged for.
func (x *Index) repSources() []Selector {
	x.reps.once.Do(func() {
		for _, g := range x.groups.all() {
			s, _ := x.sources.get(g.rep)
			x.reps.sels = append(x.reps.sels, s.sel)
		}
	})
	return x.reps.sels
}

// indexPolicy adds p with a new slot to the policies and their indexes.
func (x *Index) indexPolicy(p *Policy) {
	e := polEntry{p, x.nextSlot}
	x.nextSlot++
	x.pols = x.pols.set(x.edit, p.ID(), e)
	if k, ok := polKey(&p.TargetRef); ok {
		l, _ := x.polBy.get(k)
		x.polBy = x.polBy.set(x.edit, k, append(l[:len(l):len(l)], e))
	}
	for i := range p.From {
		if k, ok := fromKey(&p.From[i].TargetRef); ok {
			l, _ := x.fromBy.get(k)
			x.fromBy = x.fromBy.set(x.edit, k, append(l[:len(l):len(l)], fromRef{p, e.slot, i}))
		}
	}
}

// unindexPolicy removes e's policy from the policies and their indexes.
func (x *Index) unindexPolicy(e polEntry) {
	p := e.p
	x.pols = x.pols.del(x.edit, p.ID())
	if k, ok := polKey(&p.TargetRef); ok {
		l, _ := x.polBy.get(k)
		out := make([]polEntry, 0, len(l))
		for _, q := range l {
			if q.p != p {
				out = append(out, q)
			}
		}
		if len(out) == 0 {
			x.polBy = x.polBy.del(x.edit, k)
		} else {
			x.polBy = x.polBy.set(x.edit, k, out)
		}
	}
	for i := range p.From {
		if k, ok := fromKey(&p.From[i].TargetRef); ok {
			l, _ := x.fromBy.get(k)
			out := make([]fromRef, 0, len(l))
			for _, f := range l {
				if f.p != p {
					out = append(out, f)
				}
			}
			if len(out) == 0 {
				x.fromBy = x.fromBy.del(x.edit, k)
			} else {
				x.fromBy = x.fromBy.set(x.edit, k, out)
			}
		}
	}
}

// slotOf returns the slot of an indexed policy.
func (x *Index) slotOf(p *Policy) int {
	e, _ := x.pols.get(p.ID())
	return e.slot
}

// polKey is the key a policy's top-level targetRef is indexed under: one thing every Dataplane it
// selects carries (dataplaneKeys), or "*" when it may select any. Route kinds select none (false).
func polKey(r *TargetRef) (string, bool) {
	switch r.Kind {
	case MeshGatewayRoute, HTTPRoute:
		return "", false
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		if r.Name != "" {
			return "s:" + r.Name, true
		}
	case MeshSubset:
		if len(r.Tags) > 0 {
			return "t:" + firstTag(r.Tags), true
		}
	case Proxy:
		return "n:" + r.Name, true
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			return "l:" + firstTag(r.Labels), true
		case r.Name != "":
			return "n:" + r.Name, true
		}
	}
	return "*", true
}

// dataplaneKeys are the keys of polKey that may select dp.
func dataplaneKeys(dp *Dataplane) []string {
	keys := []string{"*", "n:" + dp.Name}
	for k, v := range dp.Labels {
		keys = append(keys, "l:"+k+"="+v)
	}
	for _, in := range dp.Inbound {
		keys = append(keys, "s:"+in[ServiceTag])
		for k, v := range in {
			keys = append(keys, "t:"+k+"="+v)
		}
	}
	return keys
}

// fromKey is the key a from element's targetRef is indexed under: one thing every source it
// selects carries (sourceKeys). Elements that select every source or none tell no sources apart
// and are not indexed (false).
func fromKey(r *TargetRef) (string, bool) {
	switch r.Kind {
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		return "s:" + r.Name, true
	case MeshSubset:
		if len(r.Tags) > 0 {
			return "t:" + firstTag(r.Tags), true
		}
	}
	return "", false
}

// firstTag is the tag of the smallest key, "k=v".
func firstTag(tags map[string]string) string {
	first := ""
	for k := range tags {
		if first == "" || k < first {
			first = k
		}
	}
	return first + "=" + tags[first]
}

// policiesSelecting returns the indexed policies whose top-level targetRef selects dp, in slot
// order, and the signature of their class.
func (x *Index) policiesSelecting(dp *Dataplane) (string, []*Policy) {
	var found []polEntry
	for _, k := range dataplaneKeys(dp) {
		l, _ := x.polBy.get(k)
		for _, e := range l {
			if e.p.SelectsProxy(dp) {
				found = append(found, e)
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].slot < found[j].slot })
	slots := make([]int, 0, len(found))
	out := make([]*Policy, 0, len(found))
	for i, e := range found {
		if i > 0 && found[i-1].p == e.p {
			continue // indexed under one key, but a Dataplane may carry it twice
		}
		slots = append(slots, e.slot)
		out = append(out, e.p)
	}
	return signature(slots), out
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

// candidates returns the members of the smallest set among the tags' (a superset of those
// carrying every tag: callers check each), or all = true when tags is empty.
func candidates(idx pmap[string, keySet], tags map[string]string) (ids keySet, all bool) {
	if len(tags) == 0 {
		return ids, true
	}
	first := true
	for k, v := range tags {
		l, _ := idx.get(k + "=" + v)
		if first || l.len() < ids.len() {
			ids, first = l, false
		}
	}
	return ids, false
}

// selectedBy returns the Dataplanes p's top-level targetRef selects, by key, visiting only the
// candidates the indexes give for its kind.
func (x *Index) selectedBy(p *Policy) []string {
	var cand keySet
	all := false
	r := &p.TargetRef
	switch r.Kind {
	case Service, MeshService:
		cand, _ = x.inTags.get(ServiceTag + "=" + r.Name)
	case ServiceSubset, MeshServiceSubset:
		tags := map[string]string{ServiceTag: r.Name}
		for k, v := range r.Tags {
			tags[k] = v
		}
		cand, _ = candidates(x.inTags, tags)
	case MeshSubset:
		cand, all = candidates(x.inTags, r.Tags)
	case Proxy:
		cand, _ = x.names.get("name=" + r.Name)
	case DataplaneRef:
		switch {
		case len(r.Labels) > 0:
			cand, _ = candidates(x.labels, r.Labels)
		case r.Name != "":
			cand, _ = x.names.get("name=" + r.Name)
		default:
			all = true
		}
	case Mesh:
		all = true
	}
	var out []string
	if all {
		for k, dp := range x.dps.all() {
			if p.SelectsProxy(dp) {
				out = append(out, k)
			}
		}
		return out
	}
	for k := range cand.all() {
		if dp, ok := x.dps.get(k); ok && p.SelectsProxy(dp) {
			out = append(out, k)
		}
	}
	return out
}

// sourcesSelectedBy returns the sources an element targetRef selects, by key, through the tag index.
func (x *Index) sourcesSelectedBy(r *TargetRef) []string {
	var cand keySet
	all := false
	switch r.Kind {
	case Mesh:
		all = true
	case Service, MeshService, ServiceSubset, MeshServiceSubset:
		cand, _ = x.srcTags.get(ServiceTag + "=" + r.Name)
	case MeshSubset:
		cand, all = candidates(x.srcTags, r.Tags)
	}
	var out []string
	if all {
		for k, s := range x.sources.all() {
			if r.Selects(&s.sel) {
				out = append(out, k)
			}
		}
		return out
	}
	for k := range cand.all() {
		if s, ok := x.sources.get(k); ok && r.Selects(&s.sel) {
			out = append(out, k)
		}
	}
	return out
}

// groupKey names the group of a source: the indexed from elements that select it.
func (x *Index) groupKey(s *Selector) string {
	var refs []fromRef
	visit := func(k string) {
		l, _ := x.fromBy.get(k)
		for _, f := range l {
			if f.p.From[f.i].TargetRef.Selects(s) {
				refs = append(refs, f)
			}
		}
	}
	visit("s:" + s.service())
	for k, v := range s.Tags {
		visit("t:" + k + "=" + v)
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].slot != refs[j].slot {
			return refs[i].slot < refs[j].slot
		}
		return refs[i].i < refs[j].i
	})
	var b strings.Builder
	for _, f := range refs {
		b.WriteString(signature([]int{f.slot, f.i}))
	}
	return b.String()
}
