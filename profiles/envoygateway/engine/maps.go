package engine

import (
	"hash/maphash"

	"github.com/benbjohnson/immutable"

	"github.com/precedent-dev/precedent/internal/topology"
)

// A Snapshot keeps its policy indexes in persistent maps (github.com/benbjohnson/immutable): Set and
// Delete return a new map sharing all but the path to the key with the old one, so a step
// (WithPolicy) copies what the event touches and the previous snapshot stays valid for its readers.

// hasher hashes keys with hash/maphash (immutable's own hashers take only integers and strings).
type hasher[K comparable] struct{}

var hashSeed = maphash.MakeSeed()

func (hasher[K]) Hash(k K) uint32   { return uint32(maphash.Comparable(hashSeed, k)) }
func (hasher[K]) Equal(a, b K) bool { return a == b }

// pmap is a persistent map; the zero value (nil) is empty.
type pmap[K comparable, V any] struct{ m *immutable.Map[K, V] }

func (p pmap[K, V]) get(k K) V {
	var zero V
	if p.m == nil {
		return zero
	}
	v, _ := p.m.Get(k)
	return v
}

func (p pmap[K, V]) lookup(k K) (V, bool) {
	if p.m == nil {
		var zero V
		return zero, false
	}
	return p.m.Get(k)
}

func (p pmap[K, V]) set(k K, v V) pmap[K, V] {
	if p.m == nil {
		p.m = immutable.NewMap[K, V](hasher[K]{})
	}
	return pmap[K, V]{p.m.Set(k, v)}
}

func (p pmap[K, V]) del(k K) pmap[K, V] {
	if p.m == nil {
		return p
	}
	return pmap[K, V]{p.m.Delete(k)}
}

// pmapOf is m as a persistent map, built in place.
func pmapOf[K comparable, V any](m map[K]V) pmap[K, V] {
	b := immutable.NewMapBuilder[K, V](hasher[K]{})
	for k, v := range m {
		b.Set(k, v)
	}
	return pmap[K, V]{b.Map()}
}

// keyComparer orders keys as topology.Key.Compare does.
type keyComparer struct{}

func (keyComparer) Compare(a, b topology.Key) int { return a.Compare(b) }

// objectMap is the objects of one kind by key, in key order (persistent).
type objectMap = *immutable.SortedMap[topology.Key, Object]
