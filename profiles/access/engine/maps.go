package engine

import (
	"iter"

	"github.com/benbjohnson/immutable"
)

// The topology and the grants keep their indexes in persistent maps (github.com/benbjohnson/immutable)
// keyed by strings: Set and Delete return a new map sharing all but the path to the key with the
// old one, which stays valid and unchanged, so a version costs what it changes. The zero values are
// empty and ready to use. Values are shared between versions: store values that are never modified.
type (
	keyed[V any]   = immutable.Map[string, V]       // in no particular order
	ordered[V any] = immutable.SortedMap[string, V] // in key order
)

// valueAt returns the value of key in m, the zero value when there is none.
func valueAt[V any](m *keyed[V], key string) V {
	v, _ := m.Get(key)
	return v
}

// keyedOf is the entries of m as a persistent map, built in place.
func keyedOf[V any](m map[string]V) keyed[V] { return *immutable.NewMapOf(nil, m) }

// entries yields the entries of m, in no particular order.
func entries[V any](m *keyed[V]) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		for it := m.Iterator(); !it.Done(); {
			if k, v, _ := it.Next(); !yield(k, v) {
				return
			}
		}
	}
}

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
