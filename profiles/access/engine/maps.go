package engine

import (
	"iter"

	"github.com/benbjohnson/immutable"

	"github.com/precedent-dev/precedent/profiles/internal/pmap"
)

// The topology and the grants keep their indexes in persistent maps keyed by strings (package pmap:
// a base Go map that a build fills, with the changes of the versions since over it), so a version
// costs what it changes and the one it came from stays valid and unchanged. The zero values are
// empty and ready to use. Values are shared between versions: store values that are never modified.
type (
	keyed[V any]   = pmap.Map[string, V]            // in no particular order
	ordered[V any] = immutable.SortedMap[string, V] // in key order
)

// valueAt returns the value of key in m, the zero value when there is none.
func valueAt[V any](m *keyed[V], key string) V {
	v, _ := m.Get(key)
	return v
}

// keyedOf is m as a persistent map: its base, which no one may write afterwards.
func keyedOf[V any](m map[string]V) keyed[V] { return pmap.Of(m) }

// entries yields the entries of m, in no particular order.
func entries[V any](m *keyed[V]) iter.Seq2[string, V] { return m.All() }

// inOrder yields the entries of m in key order.
func inOrder[V any](m *ordered[V]) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		for it := m.Iterator(); !it.Done(); {
			if k, v, _ := it.Next(); !yield(k, v) {
				return
			}
		}
	}
}
