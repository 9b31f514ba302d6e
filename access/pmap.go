package access

import (
	"cmp"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
)

// pmap is a persistent map from strings to V (a hash array mapped trie): Set and Delete return a new
// map that shares all but the path to the key with the old one, which stays valid and unchanged.
// Both cost O(log32 n) node copies, so an event that changes a few keys costs what it changes, not
// the size of the map. The zero value is empty and ready to use. Values are shared between versions:
// store values that are never modified.
type pmap[V any] struct {
	root *pnode[V]
	n    int
}

// pnode is one node of the trie: a slot for each bit set in bitmap, in bit order. At the depth
// where the hash is used up (shift >= 64) a node is a list of colliding leaves and bitmap is unused.
type pnode[V any] struct {
	bitmap uint32
	slots  []pslot[V]
}

// pslot is a subtree (sub not nil) or one entry.
type pslot[V any] struct {
	sub  *pnode[V]
	hash uint64
	key  string
	val  V
}

var pmapSeed = maphash.MakeSeed()

func phash(key string) uint64 { return maphash.String(pmapSeed, key) }

// Len is the number of entries.
func (m pmap[V]) Len() int { return m.n }

// Get returns the value of key and whether there is one.
func (m pmap[V]) Get(key string) (V, bool) {
	h := phash(key)
	n, shift := m.root, uint(0)
	for n != nil {
		if shift >= 64 {
			for i := range n.slots {
				if n.slots[i].key == key {
					return n.slots[i].val, true
				}
			}
			break
		}
		bit := uint32(1) << ((h >> shift) & 31)
		if n.bitmap&bit == 0 {
			break
		}
		s := &n.slots[bits.OnesCount32(n.bitmap&(bit-1))]
		if s.sub != nil {
			n, shift = s.sub, shift+5
			continue
		}
		if s.hash == h && s.key == key {
			return s.val, true
		}
		break
	}
	var zero V
	return zero, false
}

// At is Get without the second result.
func (m pmap[V]) At(key string) V {
	v, _ := m.Get(key)
	return v
}

// Set returns m with key set to v.
func (m pmap[V]) Set(key string, v V) pmap[V] {
	root, added := m.root.set(0, phash(key), key, v, false)
	m.root = root
	if added {
		m.n++
	}
	return m
}

// setOwned sets key to v in place: only for a map no other version shares (while building one).
func (m *pmap[V]) setOwned(key string, v V) {
	root, added := m.root.set(0, phash(key), key, v, true)
	m.root = root
	if added {
		m.n++
	}
}

// Delete returns m without key.
func (m pmap[V]) Delete(key string) pmap[V] {
	root, removed := m.root.del(0, phash(key), key)
	if removed {
		m.root = root
		m.n--
	}
	return m
}

// Range calls f with every entry, in no particular order, until f returns false.
func (m pmap[V]) Range(f func(key string, v V) bool) {
	m.root.each(f)
}

func (n *pnode[V]) each(f func(string, V) bool) bool {
	if n == nil {
		return true
	}
	for i := range n.slots {
		s := &n.slots[i]
		if s.sub != nil {
			if !s.sub.each(f) {
				return false
			}
		} else if !f(s.key, s.val) {
			return false
		}
	}
	return true
}

// set returns n with key set to v (n itself when owned) and whether key is new.
func (n *pnode[V]) set(shift uint, h uint64, key string, v V, owned bool) (*pnode[V], bool) {
	leaf := pslot[V]{hash: h, key: key, val: v}
	if n == nil {
		if shift >= 64 {
			return &pnode[V]{slots: []pslot[V]{leaf}}, true
		}
		return &pnode[V]{bitmap: 1 << ((h >> shift) & 31), slots: []pslot[V]{leaf}}, true
	}
	c := n
	if !owned {
		c = &pnode[V]{bitmap: n.bitmap, slots: n.slots}
	}
	if shift >= 64 {
		for i := range n.slots {
			if n.slots[i].key == key {
				c.slots = c.own(owned, 0)
				c.slots[i] = leaf
				return c, false
			}
		}
		c.slots = append(c.own(owned, 1), leaf)
		return c, true
	}
	bit := uint32(1) << ((h >> shift) & 31)
	i := bits.OnesCount32(n.bitmap & (bit - 1))
	if n.bitmap&bit == 0 {
		slots := c.own(owned, 1)
		slots = append(slots, pslot[V]{})
		copy(slots[i+1:], slots[i:])
		slots[i] = leaf
		c.bitmap |= bit
		c.slots = slots
		return c, true
	}
	s := n.slots[i]
	var repl pslot[V]
	added := false
	switch {
	case s.sub != nil:
		sub, a := s.sub.set(shift+5, h, key, v, owned)
		repl, added = pslot[V]{sub: sub}, a
	case s.hash == h && s.key == key:
		repl = leaf
	default: // another key in this slot: push both one level down
		sub, _ := (*pnode[V])(nil).set(shift+5, s.hash, s.key, s.val, true)
		sub, _ = sub.set(shift+5, h, key, v, true)
		repl, added = pslot[V]{sub: sub}, true
	}
	c.slots = c.own(owned, 0)
	c.slots[i] = repl
	return c, added
}

// own returns c's slots, copied (with room for extra more) unless owned.
func (c *pnode[V]) own(owned bool, extra int) []pslot[V] {
	if owned {
		return c.slots
	}
	s := make([]pslot[V], len(c.slots), len(c.slots)+extra)
	copy(s, c.slots)
	return s
}

// del returns n without key (nil when it is left empty) and whether key was there.
func (n *pnode[V]) del(shift uint, h uint64, key string) (*pnode[V], bool) {
	if n == nil {
		return nil, false
	}
	if shift >= 64 {
		for i := range n.slots {
			if n.slots[i].key == key {
				if len(n.slots) == 1 {
					return nil, true
				}
				return &pnode[V]{slots: without(n.slots, i)}, true
			}
		}
		return n, false
	}
	bit := uint32(1) << ((h >> shift) & 31)
	if n.bitmap&bit == 0 {
		return n, false
	}
	i := bits.OnesCount32(n.bitmap & (bit - 1))
	s := n.slots[i]
	if s.sub == nil {
		if s.hash != h || s.key != key {
			return n, false
		}
		if len(n.slots) == 1 {
			return nil, true
		}
		return &pnode[V]{bitmap: n.bitmap &^ bit, slots: without(n.slots, i)}, true
	}
	sub, removed := s.sub.del(shift+5, h, key)
	if !removed {
		return n, false
	}
	c := &pnode[V]{bitmap: n.bitmap, slots: make([]pslot[V], len(n.slots))}
	copy(c.slots, n.slots)
	switch {
	case sub == nil: // cannot happen: a subtree holds two entries or more
		if len(n.slots) == 1 {
			return nil, true
		}
		return &pnode[V]{bitmap: n.bitmap &^ bit, slots: without(n.slots, i)}, true
	case len(sub.slots) == 1 && sub.slots[0].sub == nil: // one entry left below: lift it here
		c.slots[i] = sub.slots[0]
	default:
		c.slots[i] = pslot[V]{sub: sub}
	}
	return c, true
}

// without returns a copy of s without its element i.
func without[S any](s []S, i int) []S {
	out := make([]S, 0, len(s)-1)
	out = append(out, s[:i]...)
	return append(out, s[i+1:]...)
}

// pmapOf builds the pmap of the entries of m at once: each node allocated once, at its size.
func pmapOf[V any](m map[string]V) pmap[V] {
	type entry struct {
		order uint64 // the hash's 5-bit groups, the first used the most significant
		slot  pslot[V]
	}
	es := make([]entry, 0, len(m))
	for k, v := range m {
		h := phash(k)
		var o uint64
		for shift := uint(0); shift < 60; shift += 5 {
			o = o<<5 | (h>>shift)&31
		}
		o = o<<4 | h>>60
		es = append(es, entry{order: o, slot: pslot[V]{hash: h, key: k, val: v}})
	}
	slices.SortFunc(es, func(a, b entry) int {
		if c := cmp.Compare(a.order, b.order); c != 0 {
			return c
		}
		return strings.Compare(a.slot.key, b.slot.key)
	})
	var build func(es []entry, shift uint) *pnode[V]
	build = func(es []entry, shift uint) *pnode[V] {
		n := &pnode[V]{}
		if shift >= 64 {
			for _, e := range es {
				n.slots = append(n.slots, e.slot)
			}
			return n
		}
		for i := 0; i < len(es); {
			idx := (es[i].slot.hash >> shift) & 31
			j := i + 1
			for j < len(es) && (es[j].slot.hash>>shift)&31 == idx {
				j++
			}
			n.bitmap |= 1 << idx
			i = j
		}
		n.slots = make([]pslot[V], 0, bits.OnesCount32(n.bitmap))
		for i := 0; i < len(es); {
			idx := (es[i].slot.hash >> shift) & 31
			j := i + 1
			for j < len(es) && (es[j].slot.hash>>shift)&31 == idx {
				j++
			}
			if j-i == 1 {
				n.slots = append(n.slots, es[i].slot)
			} else {
				n.slots = append(n.slots, pslot[V]{sub: build(es[i:j], shift+5)})
			}
			i = j
		}
		return n
	}
	if len(es) == 0 {
		return pmap[V]{}
	}
	return pmap[V]{root: build(es, 0), n: len(es)}
}
