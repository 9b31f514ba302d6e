package engine

import (
	"slices"
	"strings"
	"sync"

	"github.com/benbjohnson/immutable"
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
	version  Version // the Kuma version predicted (EntriesAt, classPermissions)
	nextSlot int
	pols     immutable.Map[string, polEntry]   // by ID
	polBy    immutable.Map[selKey, []polEntry] // polKey → policies whose targetRef may select what has it
	fromBy   immutable.Map[selKey, []fromRef]  // fromKey → from elements that may select a source that has it

	dps      immutable.Map[string, *dpEntry] // by "namespace/name"
	gateways int                             // the Dataplanes that are gateways (proxyTypes Gateway)
	inNs     immutable.Map[string, int]      // namespace → its Dataplanes (a namespace role's reach, meshWrite)
	inTags   immutable.Map[string, keySet]   // inbound tags "k=v" → Dataplanes
	names    immutable.Map[string, keySet]   // "name=NAME" → Dataplanes
	labels   immutable.Map[string, keySet]   // metadata labels "k=v" → Dataplanes

	classes immutable.Map[string, *class]  // by signature
	member  immutable.Map[*Policy, keySet] // policy → signatures of the classes holding it

	sources immutable.Map[string, *source] // by Selector.String()
	srcTags immutable.Map[string, keySet]  // source tags "k=v" → sources
	groups  immutable.Map[string, *group]  // by the from elements that select their sources (groupKey)

	agg immutable.Map[*Policy, map[elemKey]*counts] // per policy, the sum of the classes' contrib

	// Kuma's MeshTrafficPermissions only (perms set): the void allow matches and from policies of
	// the rules (ruleshadow.go), summed over the classes like agg.
	perms bool
	perm  immutable.Map[permissionKey, *permCount]
	// the indexed Kuma MeshTrafficPermissions with rules: where there are none, no class's rules
	// replace a written policy's from items (meshWrite)
	withRules int

	reps *repCache // one source per group, computed on first use

	// What the classes' heads claim on their outbounds (heads.go), for the writes of mesh-level
	// policies (meshwrite.go): the shapes by variant and shape, the cells over every class and
	// over the classes of each variant.
	shapes   immutable.Map[string, *shapeCount]
	claims   claimIndex
	variants immutable.Map[string, claimIndex]
	// outbound service → signatures of the classes with outbounds to it: the classes a mesh-level
	// to item on that service meets.
	outCls immutable.Map[string, keySet]
}

// dpEntry is an indexed Dataplane and the keys of the policies that may select it (dataplaneKeys).
type dpEntry struct {
	dp   *Dataplane
	keys []selKey
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
	heads     []headTarget                 // headsOf(ordered, outbounds)
	fromKey   string                       // the key of the sets of its head's from entries (headSets)
	variant   string                       // variantOf(ordered)
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
	return NewIndexAt(Versions[len(Versions)-1], kind, policies, dataplanes)
}

// NewIndexAt is NewIndex predicting Kuma version v: the order of to items (EntriesAt) and whether
// rules replace the from items of MeshTrafficPermissions (classPermissions).
func NewIndexAt(v Version, kind string, policies []Policy, dataplanes []Dataplane) *Index {
	x := &Index{kind: kind, version: v, reps: &repCache{},
		pols: newMap[string, polEntry](), polBy: newMap[selKey, []polEntry](), fromBy: newMap[selKey, []fromRef](),
		dps: newMap[string, *dpEntry](), inTags: newMap[string, keySet](), names: newMap[string, keySet](),
		labels: newMap[string, keySet](), classes: newMap[string, *class](), member: newMap[*Policy, keySet](),
		sources: newMap[string, *source](), srcTags: newMap[string, keySet](), groups: newMap[string, *group](),
		agg: newMap[*Policy, map[elemKey]*counts](), perm: newMap[permissionKey, *permCount](),
		shapes: newMap[string, *shapeCount](), claims: newClaimIndex(), variants: newMap[string, claimIndex](),
		outCls: newMap[string, keySet](), inNs: newMap[string, int]()}
	if g, k, _ := strings.Cut(kind, "."); g == KindMeshTrafficPermission && k == KumaGroup {
		x.perms = true
	}
	for i := range policies {
		if policies[i].matchesKind(kind) {
			p := policies[i]
			old, _ := x.pols.Get(p.ID())
			x.setPolicy(old, &p)
		}
	}
	t := newTxn(x)
	x.buildDataplanes(t, dataplanes)
	t.finish()
	return x
}

// DataplaneKey is the key of a Dataplane in an Index: "namespace/name".
func DataplaneKey(dp *Dataplane) string { return dp.Namespace + "/" + dp.Name }

// clone returns a shallow copy of x to derive the next version from.
func (x *Index) clone() *Index {
	y := *x
	y.reps = &repCache{}
	return &y
}

// repSources returns one source per group: the sources a class's from entries are merged for.
func (x *Index) repSources() []Selector {
	x.reps.once.Do(func() {
		for it := x.groups.Iterator(); !it.Done(); {
			_, g, _ := it.Next()
			s, _ := x.sources.Get(g.rep)
			x.reps.sels = append(x.reps.sels, s.sel)
		}
	})
	return x.reps.sels
}

// setPolicy replaces the indexed policy old (old.p nil: none) by p (nil: none), which takes a new
// slot, in the policies and their indexes, setting each entry it changes once.
func (x *Index) setPolicy(old polEntry, p *Policy) {
	var e polEntry
	if old.p != nil && (p == nil || p.ID() != old.p.ID()) {
		x.pols = *x.pols.Delete(old.p.ID())
	}
	if old.p != nil && permRules(old.p) {
		x.withRules--
	}
	if p != nil && permRules(p) {
		x.withRules++
	}
	if p != nil {
		e = polEntry{p, x.nextSlot}
		x.nextSlot++
		x.pols = *x.pols.Set(p.ID(), e)
	}
	var keys, fromKeys []selKey
	addPol, addFrom := map[selKey][]polEntry{}, map[selKey][]fromRef{}
	for _, q := range [2]*Policy{old.p, p} {
		if q == nil {
			continue
		}
		if k, ok := polKey(&q.TargetRef); ok {
			keys = append(keys, k)
			if q == p {
				addPol[k] = append(addPol[k], e)
			}
		}
		for i := range q.From {
			if k, ok := fromKey(&q.From[i].TargetRef); ok {
				fromKeys = append(fromKeys, k)
				if q == p {
					addFrom[k] = append(addFrom[k], fromRef{p, e.slot, i})
				}
			}
		}
	}
	x.polBy = relist(x.polBy, keys, func(q polEntry) bool { return q.p != old.p }, addPol)
	x.fromBy = relist(x.fromBy, fromKeys, func(f fromRef) bool { return f.p != old.p }, addFrom)
}

// relist returns idx with, under each of keys, the entries that keep rejects taken out of the list
// and those of add appended (the key dropped when its list is left empty).
func relist[T any](idx immutable.Map[selKey, []T], keys []selKey, keep func(T) bool, add map[selKey][]T) immutable.Map[selKey, []T] {
	for i, k := range keys {
		if slices.Contains(keys[:i], k) {
			continue
		}
		l, _ := idx.Get(k)
		out := make([]T, 0, len(l)+len(add[k]))
		for _, q := range l {
			if keep(q) {
				out = append(out, q)
			}
		}
		if out = append(out, add[k]...); len(out) == 0 {
			idx = *idx.Delete(k)
		} else {
			idx = *idx.Set(k, out)
		}
	}
	return idx
}

// slotOf returns the slot of an indexed policy.
func (x *Index) slotOf(p *Policy) int {
	e, _ := x.pols.Get(p.ID())
	return e.slot
}

// signature encodes a sorted list of policy slots.
func signature(slots []int) string {
	var b strings.Builder
	b.Grow(4 * len(slots))
	for _, s := range slots {
		writeSlot(&b, s)
	}
	return b.String()
}

func writeSlot(b *strings.Builder, s int) {
	b.WriteByte(byte(s >> 24))
	b.WriteByte(byte(s >> 16))
	b.WriteByte(byte(s >> 8))
	b.WriteByte(byte(s))
}
