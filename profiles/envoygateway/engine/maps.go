package engine

import (
	"hash/maphash"
	"iter"

	"github.com/benbjohnson/immutable"

	"github.com/precedent-dev/precedent/internal/topology"
)

// A Snapshot keeps its indexes in persistent maps: a step (WithPolicy, WithTopology) returns a
// snapshot that shares all but what the event touches with the previous one, which stays valid for
// its readers. A build (NewSnapshot) fills plain Go maps and freezes them as the maps' bases, which
// nothing writes afterwards; a step records its changes over the base in a persistent map
// (github.com/benbjohnson/immutable), where Set and Delete return a new map sharing all but the path
// to the key with the old one. Built straight into persistent maps, a 10x world's indexes cost their
// build a hash-trie insert per key, each a few cache misses, on top of the Go maps they were
// gathered in.

// hasher hashes keys with hash/maphash (immutable's own hashers take only integers and strings).
type hasher[K comparable] struct{}

var hashSeed = maphash.MakeSeed()

func (hasher[K]) Hash(k K) uint32   { return uint32(maphash.Comparable(hashSeed, k)) }
func (hasher[K]) Equal(a, b K) bool { return a == b }

// pmap is a persistent map; the zero value is empty. Its entries are base's, or at's (each key's
// value is vals[at[key]]: a build's index of positions, frozen without a copy), changed by over's:
// a change sets a key's value, or removes the key (gone).
type pmap[K comparable, V any] struct {
	base map[K]V
	at   map[K]int
	vals []V
	over *immutable.Map[K, change[V]]
}

// change is a step's change of one key of a pmap.
type change[V any] struct {
	v    V
	gone bool
}

func (p pmap[K, V]) get(k K) V {
	v, _ := p.lookup(k)
	return v
}

func (p pmap[K, V]) lookup(k K) (V, bool) {
	if p.over != nil {
		if c, ok := p.over.Get(k); ok {
			return c.v, !c.gone
		}
	}
	return p.inBase(k)
}

// inBase is the value of k in base (or at), before any change.
func (p pmap[K, V]) inBase(k K) (V, bool) {
	if p.at != nil {
		if i, ok := p.at[k]; ok {
			return p.vals[i], true
		}
		var zero V
		return zero, false
	}
	v, ok := p.base[k]
	return v, ok
}

func (p pmap[K, V]) set(k K, v V) pmap[K, V] {
	return p.with(k, change[V]{v: v})
}

func (p pmap[K, V]) del(k K) pmap[K, V] {
	if _, ok := p.inBase(k); ok {
		return p.with(k, change[V]{gone: true})
	}
	if p.over == nil {
		return p
	}
	p.over = p.over.Delete(k)
	return p
}

func (p pmap[K, V]) with(k K, c change[V]) pmap[K, V] {
	if p.over == nil {
		p.over = immutable.NewMap[K, change[V]](hasher[K]{})
	}
	p.over = p.over.Set(k, c)
	return p
}

// all is the entries of p, in no order.
func (p pmap[K, V]) all() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if p.over != nil {
			for it := p.over.Iterator(); !it.Done(); {
				k, c, _ := it.Next()
				if !c.gone && !yield(k, c.v) {
					return
				}
			}
		}
		unchanged := func(k K) bool {
			if p.over == nil {
				return true
			}
			_, changed := p.over.Get(k)
			return !changed
		}
		for k, v := range p.base {
			if unchanged(k) && !yield(k, v) {
				return
			}
		}
		for k, i := range p.at {
			if unchanged(k) && !yield(k, p.vals[i]) {
				return
			}
		}
	}
}

// sizeHint is about the number of entries of p (for a capacity).
func (p pmap[K, V]) sizeHint() int {
	n := len(p.base) + len(p.at)
	if p.over != nil {
		n += p.over.Len()
	}
	return n
}

// pmapOf is m as a persistent map: its base, which no one may write afterwards.
func pmapOf[K comparable, V any](m map[K]V) pmap[K, V] { return pmap[K, V]{base: m} }

// pmapAt is the persistent map of each key of at to vals[at[key]]; no one may write at or vals
// afterwards.
func pmapAt[K comparable, V any](at map[K]int, vals []V) pmap[K, V] {
	return pmap[K, V]{at: at, vals: vals}
}

// keyComparer orders keys as topology.Key.Compare does.
type keyComparer struct{}

func (keyComparer) Compare(a, b topology.Key) int { return a.Compare(b) }

// objectMap is the objects of one kind by key, in key order (persistent).
type objectMap = *immutable.SortedMap[topology.Key, Object]
