package topology

import "hash/maphash"

// Persistent containers for the versions of a graph: an update copies the pieces it writes (one
// shard of a map, one chunk of a vector, and the table of them) and shares the rest with the
// version it came from, which stays as it was for the readers that hold it.

const shards = 256

var shardSeed = maphash.MakeSeed()

// pmap is a map split into shards by hash; a version shares the shards it did not write.
type pmap[K comparable, V any] struct {
	s *[shards]map[K]V
	n int
}

func shardOf[K comparable](k K) int { return int(maphash.Comparable(shardSeed, k) % shards) }

func (m pmap[K, V]) get(k K) (V, bool) {
	if m.s == nil {
		var zero V
		return zero, false
	}
	v, ok := m.s[shardOf(k)][k]
	return v, ok
}

func (m pmap[K, V]) len() int { return m.n }

// each calls f on every entry, in no order, until f returns false.
func (m pmap[K, V]) each(f func(K, V) bool) {
	if m.s == nil {
		return
	}
	for _, sh := range m.s {
		for k, v := range sh {
			if !f(k, v) {
				return
			}
		}
	}
}

// pmapEdit writes a new version of a pmap: each shard is copied once, on its first write.
type pmapEdit[K comparable, V any] struct {
	m     pmap[K, V]
	table bool // m.s is this edit's own copy
	owned [shards]bool
}

func (m pmap[K, V]) edit() *pmapEdit[K, V] { return &pmapEdit[K, V]{m: m} }

func (e *pmapEdit[K, V]) get(k K) (V, bool) { return e.m.get(k) }

func (e *pmapEdit[K, V]) shard(k K) map[K]V { return e.shardAt(shardOf(k)) }

// find is get, with the number of k's shard for setAt: a caller that sets what it did not find
// hashes k for its shard once.
func (e *pmapEdit[K, V]) find(k K) (V, bool, int) {
	i := shardOf(k)
	if e.m.s == nil {
		var zero V
		return zero, false, i
	}
	v, ok := e.m.s[i][k]
	return v, ok, i
}

// setAt sets k, whose shard is number i (find), to v.
func (e *pmapEdit[K, V]) setAt(i int, k K, v V) {
	sh := e.shardAt(i)
	if _, ok := sh[k]; !ok {
		e.m.n++
	}
	sh[k] = v
}

func (e *pmapEdit[K, V]) shardAt(i int) map[K]V {
	if !e.table {
		t := new([shards]map[K]V)
		if e.m.s != nil {
			*t = *e.m.s
		}
		e.m.s, e.table = t, true
	}
	if !e.owned[i] {
		c := make(map[K]V, len(e.m.s[i])+1)
		for k, v := range e.m.s[i] {
			c[k] = v
		}
		e.m.s[i], e.owned[i] = c, true
	}
	return e.m.s[i]
}

// reserve sizes the shards of an empty map for about n entries, so that a build does not grow
// them by rehashing from empty.
func (e *pmapEdit[K, V]) reserve(n int) {
	if e.m.s != nil {
		return
	}
	t := new([shards]map[K]V)
	for i := range t {
		t[i] = make(map[K]V, n/shards+1)
		e.owned[i] = true
	}
	e.m.s, e.table = t, true
}

func (e *pmapEdit[K, V]) set(k K, v V) { e.setAt(shardOf(k), k, v) }

func (e *pmapEdit[K, V]) del(k K) {
	if _, ok := e.m.get(k); !ok {
		return
	}
	delete(e.shard(k), k)
	e.m.n--
}

func (e *pmapEdit[K, V]) done() pmap[K, V] { return e.m }

const chunk = 256

// pvec is a vector in chunks; a version shares the chunks it did not write.
type pvec[T any] struct {
	c []*[chunk]T
	n int
}

func (v pvec[T]) get(i int) T {
	if i < 0 || i >= v.n {
		var zero T
		return zero
	}
	return v.c[i/chunk][i%chunk]
}

func (v pvec[T]) len() int { return v.n }

// each calls f on every entry, in order.
func (v pvec[T]) each(f func(int, T)) {
	for c, ch := range v.c {
		for j := 0; j < chunk && c*chunk+j < v.n; j++ {
			f(c*chunk+j, ch[j])
		}
	}
}

// pvecEdit writes a new version of a pvec.
type pvecEdit[T any] struct {
	v     pvec[T]
	table bool
	owned map[int]bool
}

func (v pvec[T]) edit() *pvecEdit[T] { return &pvecEdit[T]{v: v, owned: map[int]bool{}} }

func (e *pvecEdit[T]) get(i int) T { return e.v.get(i) }

func (e *pvecEdit[T]) own(c int) *[chunk]T {
	if !e.table {
		e.v.c = append(make([]*[chunk]T, 0, len(e.v.c)+1), e.v.c...)
		e.table = true
	}
	for c >= len(e.v.c) {
		e.v.c = append(e.v.c, new([chunk]T))
		e.owned[len(e.v.c)-1] = true
	}
	if !e.owned[c] {
		cp := *e.v.c[c]
		e.v.c[c], e.owned[c] = &cp, true
	}
	return e.v.c[c]
}

// set writes entry i, growing the vector to i+1 entries when it is shorter.
func (e *pvecEdit[T]) set(i int, x T) {
	e.own(i / chunk)[i%chunk] = x
	if i >= e.v.n {
		e.v.n = i + 1
	}
}

func (e *pvecEdit[T]) done() pvec[T] { return e.v }
