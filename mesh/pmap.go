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

// keySet is a persistent set of strings.
type keySet = pmap[string, struct{}]

type pentry[K comparable, V any] struct {
	k K
	v V
}

// pnode is an inner node (one child per bit set in bits) or a leaf (ents: the keys of one hash).
type pnode[K comparable, V any] struct {
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

// set returns the map with k set to v.
func (m pmap[K, V]) set(k K, v V) pmap[K, V] {
	root, added := m.root.set(0, phash(k), k, v)
	m.root = root
	if added {
		m.n++
	}
	return m
}

// del returns the map without k.
func (m pmap[K, V]) del(k K) pmap[K, V] {
	root, removed := m.root.del(0, phash(k), k)
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

func (n *pnode[K, V]) set(shift uint, h uint64, k K, v V) (*pnode[K, V], bool) {
	if n == nil {
		return &pnode[K, V]{hash: h, ents: []pentry[K, V]{{k, v}}}, true
	}
	if n.ents != nil {
		if n.hash != h { // two hashes under one prefix: push the leaf one level down
			inner := &pnode[K, V]{bits: chunk(n.hash, shift), kids: []*pnode[K, V]{n}}
			return inner.set(shift, h, k, v)
		}
		ents := make([]pentry[K, V], len(n.ents), len(n.ents)+1)
		copy(ents, n.ents)
		for i := range ents {
			if ents[i].k == k {
				ents[i].v = v
				return &pnode[K, V]{hash: h, ents: ents}, false
			}
		}
		return &pnode[K, V]{hash: h, ents: append(ents, pentry[K, V]{k, v})}, true
	}
	bit := chunk(h, shift)
	i := bits.OnesCount32(n.bits & (bit - 1))
	out := &pnode[K, V]{bits: n.bits | bit}
	if n.bits&bit == 0 {
		out.kids = make([]*pnode[K, V], 0, len(n.kids)+1)
		out.kids = append(out.kids, n.kids[:i]...)
		out.kids = append(out.kids, &pnode[K, V]{hash: h, ents: []pentry[K, V]{{k, v}}})
		out.kids = append(out.kids, n.kids[i:]...)
		return out, true
	}
	kid, added := n.kids[i].set(shift+5, h, k, v)
	out.kids = append([]*pnode[K, V](nil), n.kids...)
	out.kids[i] = kid
	return out, added
}

func (n *pnode[K, V]) del(shift uint, h uint64, k K) (*pnode[K, V], bool) {
	if n == nil {
		return nil, false
	}
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
			ents := make([]pentry[K, V], 0, len(n.ents)-1)
			ents = append(append(ents, n.ents[:i]...), n.ents[i+1:]...)
			return &pnode[K, V]{hash: h, ents: ents}, true
		}
		return n, false
	}
	bit := chunk(h, shift)
	if n.bits&bit == 0 {
		return n, false
	}
	i := bits.OnesCount32(n.bits & (bit - 1))
	kid, removed := n.kids[i].del(shift+5, h, k)
	if !removed {
		return n, false
	}
	if kid != nil {
		out := &pnode[K, V]{bits: n.bits, kids: append([]*pnode[K, V](nil), n.kids...)}
		out.kids[i] = kid
		return out, true
	}
	if len(n.kids) == 1 {
		return nil, true
	}
	out := &pnode[K, V]{bits: n.bits &^ bit, kids: make([]*pnode[K, V], 0, len(n.kids)-1)}
	out.kids = append(append(out.kids, n.kids[:i]...), n.kids[i+1:]...)
	return out, true
}

// setAdd returns idx with member added to the set under key.
func setAdd(idx pmap[string, keySet], key, member string) pmap[string, keySet] {
	s, _ := idx.get(key)
	return idx.set(key, s.set(member, struct{}{}))
}

// setRemove returns idx with member removed from the set under key (and the key dropped when its
// set is empty).
func setRemove(idx pmap[string, keySet], key, member string) pmap[string, keySet] {
	s, ok := idx.get(key)
	if !ok {
		return idx
	}
	if s = s.del(member); s.len() == 0 {
		return idx.del(key)
	}
	return idx.set(key, s)
}
