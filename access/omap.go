package access

// omap is a persistent ordered map from strings to V (a treap whose priorities are hashes of the
// keys, so that one set of keys has one shape): Set and Delete return a new map sharing all but
// O(log n) nodes with the old one, which stays valid and unchanged; Ascend visits the entries in key
// order. The zero value is empty and ready to use.
type omap[V any] struct {
	root *onode[V]
	n    int
}

type onode[V any] struct {
	key         string
	prio        uint64
	val         V
	left, right *onode[V]
}

// above reports whether a node of key a (priority pa) sits above one of key b in the treap.
func above(pa uint64, a string, pb uint64, b string) bool { return pa > pb || (pa == pb && a < b) }

// Len is the number of entries.
func (m omap[V]) Len() int { return m.n }

// Get returns the value of key and whether there is one.
func (m omap[V]) Get(key string) (V, bool) {
	for n := m.root; n != nil; {
		switch {
		case key < n.key:
			n = n.left
		case key > n.key:
			n = n.right
		default:
			return n.val, true
		}
	}
	var zero V
	return zero, false
}

// Set returns m with key set to v; owned changes m's nodes in place (only while building a map no
// other version shares).
func (m omap[V]) Set(key string, v V, owned bool) omap[V] {
	return m.setWith(key, v, owned, nil)
}

// setWith is Set taking new nodes from alloc (nil: the heap).
func (m omap[V]) setWith(key string, v V, owned bool, alloc *slab[onode[V]]) omap[V] {
	root, added := oset(m.root, key, phash(key), v, owned, alloc)
	m.root = root
	if added {
		m.n++
	}
	return m
}

// appendOwned sets key, which no key of m sorts after, to v in place (only while building a map no
// other version shares, in key order), taking a new node from alloc: it walks the right spine only.
func (m *omap[V]) appendOwned(key string, v V, alloc *slab[onode[V]]) {
	prio := phash(key)
	link := &m.root
	for n := *link; n != nil; n = *link {
		if n.key == key {
			n.val = v
			return
		}
		if above(prio, key, n.prio, n.key) {
			break // every key below n sorts before key
		}
		link = &n.right
	}
	c := alloc.new()
	*c = onode[V]{key: key, prio: prio, val: v, left: *link}
	*link = c
	m.n++
}

// Delete returns m without key.
func (m omap[V]) Delete(key string) omap[V] {
	root, removed := odel(m.root, key)
	if removed {
		m.root = root
		m.n--
	}
	return m
}

// Ascend calls f with the entries in key order until f returns false.
func (m omap[V]) Ascend(f func(key string, v V) bool) { m.root.ascend(f) }

func (n *onode[V]) ascend(f func(string, V) bool) bool {
	for n != nil {
		if !n.left.ascend(f) || !f(n.key, n.val) {
			return false
		}
		n = n.right
	}
	return true
}

func (n *onode[V]) copy(owned bool) *onode[V] {
	if owned {
		return n
	}
	c := *n
	return &c
}

func oset[V any](n *onode[V], key string, prio uint64, v V, owned bool, alloc *slab[onode[V]]) (*onode[V], bool) {
	if n == nil {
		c := alloc.new()
		*c = onode[V]{key: key, prio: prio, val: v}
		return c, true
	}
	if key == n.key {
		c := n.copy(owned)
		c.val = v
		return c, false
	}
	if above(prio, key, n.prio, n.key) { // key is not below n: it goes here
		l, r := osplit(n, key, owned)
		c := alloc.new()
		*c = onode[V]{key: key, prio: prio, val: v, left: l, right: r}
		return c, true
	}
	c := n.copy(owned)
	var added bool
	if key < n.key {
		c.left, added = oset(n.left, key, prio, v, owned, alloc)
	} else {
		c.right, added = oset(n.right, key, prio, v, owned, alloc)
	}
	return c, added
}

// osplit splits n (which does not hold key) into the keys before key and those after.
func osplit[V any](n *onode[V], key string, owned bool) (*onode[V], *onode[V]) {
	if n == nil {
		return nil, nil
	}
	c := n.copy(owned)
	if n.key < key {
		a, b := osplit(n.right, key, owned)
		c.right = a
		return c, b
	}
	a, b := osplit(n.left, key, owned)
	c.left = b
	return a, c
}

func odel[V any](n *onode[V], key string) (*onode[V], bool) {
	if n == nil {
		return nil, false
	}
	if key == n.key {
		return omerge(n.left, n.right), true
	}
	var sub *onode[V]
	var removed bool
	if key < n.key {
		sub, removed = odel(n.left, key)
	} else {
		sub, removed = odel(n.right, key)
	}
	if !removed {
		return n, false
	}
	c := *n
	if key < n.key {
		c.left = sub
	} else {
		c.right = sub
	}
	return &c, true
}

// omerge joins a and b, every key of a before every key of b.
func omerge[V any](a, b *onode[V]) *onode[V] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case above(a.prio, a.key, b.prio, b.key):
		c := *a
		c.right = omerge(a.right, b)
		return &c
	}
	c := *b
	c.left = omerge(a, b.left)
	return &c
}

// slab hands out Ts allocated many at a time (8, then twice as many each time up to 256), for
// building a structure with many small nodes. A nil slab allocates each on its own.
type slab[T any] struct {
	free []T
	last int
}

func (s *slab[T]) new() *T {
	if s == nil {
		return new(T)
	}
	if len(s.free) == 0 {
		s.last = min(max(2*s.last, 8), 256)
		s.free = make([]T, s.last)
	}
	t := &s.free[0]
	s.free = s.free[1:]
	return t
}
