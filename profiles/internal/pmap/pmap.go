package pmap

import (
	"hash/maphash"
	"iter"

	"github.com/benbjohnson/immutable"
)

// Map is a persistent map; the zero value is empty and ready to use. Its entries are base's, or
// at's (each key's value is vals[at[key]]), changed by over's: a change sets a key's value, or
// removes the key (gone). Values are shared between versions: store values that are never
// modified. Methods take a pointer and return a new version (Set, Delete), leaving m as it was.
type Map[K comparable, V any] struct {
	base map[K]V
	at   map[K]int
	vals []V
	over *immutable.Map[K, change[V]]
	n    int
}

// change is a version's change of one key.
type change[V any] struct {
	v    V
	gone bool
}

// Of is m as a persistent map: its base, which no one may write afterwards.
func Of[K comparable, V any](m map[K]V) Map[K, V] { return Map[K, V]{base: m, n: len(m)} }

// At is the persistent map of each key of at to vals[at[key]] (a build's index of positions, frozen
// without a copy); no one may write at or vals afterwards.
func At[K comparable, V any](at map[K]int, vals []V) Map[K, V] {
	return Map[K, V]{at: at, vals: vals, n: len(at)}
}

// Get returns the value of key k, and whether m has it.
func (m *Map[K, V]) Get(k K) (V, bool) {
	if m.over != nil {
		if c, ok := m.over.Get(k); ok {
			return c.v, !c.gone
		}
	}
	return m.inBase(k)
}

// inBase is the value of k before any change.
func (m *Map[K, V]) inBase(k K) (V, bool) {
	if m.at != nil {
		if i, ok := m.at[k]; ok {
			return m.vals[i], true
		}
		var zero V
		return zero, false
	}
	v, ok := m.base[k]
	return v, ok
}

// Set returns m with key k set to v.
func (m *Map[K, V]) Set(k K, v V) *Map[K, V] {
	_, had := m.Get(k)
	n := m.with(k, change[V]{v: v})
	if !had {
		n.n++
	}
	return n
}

// Delete returns m without key k.
func (m *Map[K, V]) Delete(k K) *Map[K, V] {
	if _, had := m.Get(k); !had {
		return m
	}
	var n *Map[K, V]
	if _, inBase := m.inBase(k); inBase {
		n = m.with(k, change[V]{gone: true})
	} else {
		c := *m
		c.over = c.over.Delete(k)
		n = &c
	}
	n.n--
	return n
}

func (m *Map[K, V]) with(k K, c change[V]) *Map[K, V] {
	n := *m
	if n.over == nil {
		n.over = immutable.NewMap[K, change[V]](hasher[K]{})
	}
	n.over = n.over.Set(k, c)
	return &n
}

// Len is the number of entries of m.
func (m *Map[K, V]) Len() int { return m.n }

// All yields the entries of m, in no particular order.
func (m *Map[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if m.over != nil {
			for it := m.over.Iterator(); !it.Done(); {
				if k, c, _ := it.Next(); !c.gone && !yield(k, c.v) {
					return
				}
			}
		}
		unchanged := func(k K) bool {
			if m.over == nil {
				return true
			}
			_, changed := m.over.Get(k)
			return !changed
		}
		for k, v := range m.base {
			if unchanged(k) && !yield(k, v) {
				return
			}
		}
		for k, i := range m.at {
			if unchanged(k) && !yield(k, m.vals[i]) {
				return
			}
		}
	}
}

// hasher hashes keys with hash/maphash (immutable's own hashers take only integers and strings).
type hasher[K comparable] struct{}

var hashSeed = maphash.MakeSeed()

func (hasher[K]) Hash(k K) uint32   { return uint32(maphash.Comparable(hashSeed, k)) }
func (hasher[K]) Equal(a, b K) bool { return a == b }
