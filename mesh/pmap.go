package mesh

import (
	"hash/maphash"
	"iter"
	"math/bits"
)

// pmapSeed seeds the hashes of every pmap of the process.
var pmapSeed = maphash.MakeSeed()

// pmap is a persistent hash map: set and del return a new map that shares all but the path to the
// key with the old one, which stays valid and unchanged, so readers of the old map are never
// disturbed. It is a hash array mapped trie of 32 ways per level: an update copies a few small
// nodes, whatever the map holds. The zero value is an empty map.
type pmap[K comparable, V any] struct {
	root *pnode[K, V]
	n    int
}

// pedit marks the nodes made by one build or update of an Index: until it is published, they are
// reachable from it alone and are changed in place (a transient edit, as in Clojure's transients)
// instead of copied. nil edits nothing in place. Never reuse one after publishing.
type pedit struct{ _ byte }

// keySet is a persistent set of strings.
type keySet = pmap[string, struct{}]

type pentry[K comparable, V any] struct {
	k K
	v V
}

// pnode is an inner node (one child per bit set in bits) or a leaf (ents: the keys of one hash).
type pnode[K comparable, V any] struct {
	own  *pedit
	hash uint64
	ents []pentry[K, V]
	bits uint32
	kids []*pnode[K, V]
}

func phash[K comparable](k K) uint64 { return maphash.Comparable(pmapSeed, k) }

func chunk(h uint64, shift uint) uint32 { return uint32(1) << ((h >> shift) & 31) }

// len returns the number of keys.
func (m pmap[K, V]) len() int { return m.n }

// get returns the value of k and whether k is there.
func (m pmap[K, V]) get(k K) (V, bool) {
	h := phash(k)
	n := m.root
	for shift := uint(0); n != nil; shift += 5 {
		if n.ents != nil {
			if n.hash == h {
				for i := range n.ents {
					if n.ents[i].k == k {
						return n.ents[i].v, true
					}
				}
			}
			break
		}
		bit := chunk(h, shift)
		if n.bits&bit == 0 {
			break
		}
		n = n.kids[bits.OnesCount32(n.bits&(bit-1))]
	}
	var zero V
	return zero, false
}

// has says whether k is there.
func (m pmap[K, V]) has(k K) bool {
	_, ok := m.get(k)
	return ok
}

// set returns the map with k set to v, changing in place the nodes that e made.
func (m pmap[K, V]) set(e *pedit, k K, v V) pmap[K, V] {
	root, added := m.root.set(e, 0, phash(k), k, v)
	m.root = root
	if added {
		m.n++
	}
	return m
}

// del returns the map without k, changing in place the nodes that e made.
func (m pmap[K, V]) del(e *pedit, k K) pmap[K, V] {
	root, removed := m.root.del(e, 0, phash(k), k)
	if removed {
		m.root = root
		m.n--
	}
	return m
}

// all yields every key and value, in no particular order.
func (m pmap[K, V]) all() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) { m.root.each(yield) }
}

func (n *pnode[K, V]) each(yield func(K, V) bool) bool {
	if n == nil {
		return true
	}
	for _, e := range n.ents {
		if !yield(e.k, e.v) {
			return false
		}
	}
	for _, c := range n.kids {
		if !c.each(yield) {
			return false
		}
	}
	return true
}

// newLeaf makes a leaf of one entry in one allocation.
func newLeaf[K comparable, V any](e *pedit, h uint64, k K, v V) *pnode[K, V] {
	l := &struct {
		n   pnode[K, V]
		one [1]pentry[K, V]
	}{}
	l.one[0] = pentry[K, V]{k, v}
	l.n = pnode[K, V]{own: e, hash: h, ents: l.one[:]}
	return &l.n
}

func (n *pnode[K, V]) set(e *pedit, shift uint, h uint64, k K, v V) (*pnode[K, V], bool) {
	if n == nil {
		return newLeaf(e, h, k, v), true
	}
	mine := e != nil && n.own == e
	if n.ents != nil {
		if n.hash != h { // two hashes under one prefix: push the leaf one level down
			inner := &pnode[K, V]{own: e, bits: chunk(n.hash, shift), kids: []*pnode[K, V]{n}}
			return inner.set(e, shift, h, k, v)
		}
		out := n
		if !mine {
			out = &pnode[K, V]{own: e, hash: h, ents: make([]pentry[K, V], len(n.ents), len(n.ents)+1)}
			copy(out.ents, n.ents)
		}
		for i := range out.ents {
			if out.ents[i].k == k {
				out.ents[i].v = v
				return out, false
			}
		}
		out.ents = append(out.ents, pentry[K, V]{k, v})
		return out, true
	}
	bit := chunk(h, shift)
	i := bits.OnesCount32(n.bits & (bit - 1))
	out := n
	if !mine {
		out = &pnode[K, V]{own: e, bits: n.bits, kids: make([]*pnode[K, V], len(n.kids), len(n.kids)+1)}
		copy(out.kids, n.kids)
	}
	if n.bits&bit == 0 {
		out.bits |= bit
		out.kids = append(out.kids, nil)
		copy(out.kids[i+1:], out.kids[i:])
		out.kids[i] = newLeaf(e, h, k, v)
		return out, true
	}
	kid, added := out.kids[i].set(e, shift+5, h, k, v)
	out.kids[i] = kid
	return out, added
}

func (n *pnode[K, V]) del(e *pedit, shift uint, h uint64, k K) (*pnode[K, V], bool) {
	if n == nil {
		return nil, false
	}
	mine := e != nil && n.own == e
	if n.ents != nil {
		if n.hash != h {
			return n, false
		}
		for i := range n.ents {
			if n.ents[i].k != k {
				continue
			}
			if len(n.ents) == 1 {
				return nil, true
			}
			if mine {
				n.ents = append(n.ents[:i], n.ents[i+1:]...)
				return n, true
			}
			ents := make([]pentry[K, V], 0, len(n.ents)-1)
			ents = append(append(ents, n.ents[:i]...), n.ents[i+1:]...)
			return &pnode[K, V]{own: e, hash: h, ents: ents}, true
		}
		return n, false
	}
	bit := chunk(h, shift)
	if n.bits&bit == 0 {
		return n, false
	}
	i := bits.OnesCount32(n.bits & (bit - 1))
	kid, removed := n.kids[i].del(e, shift+5, h, k)
	if !removed {
		return n, false
	}
	if kid == nil && len(n.kids) == 1 {
		return nil, true
	}
	out := n
	if !mine {
		out = &pnode[K, V]{own: e, bits: n.bits, kids: append([]*pnode[K, V](nil), n.kids...)}
	}
	if kid != nil {
		out.kids[i] = kid
		return out, true
	}
	out.bits &^= bit
	out.kids = append(out.kids[:i], out.kids[i+1:]...)
	return out, true
}

// setAdd returns idx with member added to the set under key.
func setAdd(e *pedit, idx pmap[string, keySet], key, member string) pmap[string, keySet] {
	s, _ := idx.get(key)
	return idx.set(e, key, s.set(e, member, struct{}{}))
}

// setRemove returns idx with member removed from the set under key (and the key dropped when its
// set is empty).
func setRemove(e *pedit, idx pmap[string, keySet], key, member string) pmap[string, keySet] {
	s, ok := idx.get(key)
	if !ok {
		return idx
	}
	if s = s.del(e, member); s.len() == 0 {
		return idx.del(e, key)
	}
	return idx.set(e, key, s)
}
