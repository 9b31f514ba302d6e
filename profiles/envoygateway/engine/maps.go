package engine

import (
	"iter"

	"github.com/benbjohnson/immutable"

	"github.com/precedent-dev/precedent/internal/topology"
	persistent "github.com/precedent-dev/precedent/profiles/internal/pmap"
)

// A Snapshot keeps its indexes in persistent maps (package pmap): a step (WithPolicy, WithTopology)
// returns a snapshot that shares all but what the event touches with the previous one, which stays
// valid for its readers. A build (NewSnapshot) fills plain Go maps and freezes them as the maps'
// bases, which nothing writes afterwards; a step's changes are kept over them. Built straight into
// persistent maps (hash tries), a 10x world's indexes cost their build a trie insert per key, each a
// few cache misses, on top of the Go maps they were gathered in.

// pmap is a persistent map; the zero value is empty.
type pmap[K comparable, V any] struct{ m persistent.Map[K, V] }

func (p pmap[K, V]) get(k K) V {
	v, _ := p.m.Get(k)
	return v
}

func (p pmap[K, V]) lookup(k K) (V, bool) { return p.m.Get(k) }

func (p pmap[K, V]) set(k K, v V) pmap[K, V] { return pmap[K, V]{*p.m.Set(k, v)} }

func (p pmap[K, V]) del(k K) pmap[K, V] { return pmap[K, V]{*p.m.Delete(k)} }

// all is the entries of p, in no order.
func (p pmap[K, V]) all() iter.Seq2[K, V] { return p.m.All() }

// sizeHint is the number of entries of p (for a capacity).
func (p pmap[K, V]) sizeHint() int { return p.m.Len() }

// pmapOf is m as a persistent map: its base, which no one may write afterwards.
func pmapOf[K comparable, V any](m map[K]V) pmap[K, V] { return pmap[K, V]{persistent.Of(m)} }

// pmapAt is the persistent map of each key of at to vals[at[key]]; no one may write at or vals
// afterwards.
func pmapAt[K comparable, V any](at map[K]int, vals []V) pmap[K, V] {
	return pmap[K, V]{persistent.At(at, vals)}
}

// keyComparer orders keys as topology.Key.Compare does.
type keyComparer struct{}

func (keyComparer) Compare(a, b topology.Key) int { return a.Compare(b) }

// objectMap is the objects of one kind by key, in key order (persistent).
type objectMap = *immutable.SortedMap[topology.Key, Object]
