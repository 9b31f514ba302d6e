package engine

import (
	"iter"

	"github.com/benbjohnson/immutable"
)

// The topology and the grants keep their indexes in persistent maps keyed by strings: a version
// shares all but what it changes with the one it came from, which stays valid and unchanged, so a
// version costs what it changes. A build (TopologyOf, NewGrants) fills Go maps and freezes them as
// the maps' bases, which nothing writes afterwards; the changes of the versions since are kept over
// the base in a persistent map (github.com/benbjohnson/immutable), where Set and Delete return a new
// map sharing all but the path to the key with the old one. Built straight into persistent maps, a
// 10x world's indexes cost their build a hash-trie insert per key, each a few cache misses, on top of
// the Go maps they were gathered in. The zero values are empty and ready to use. Values are shared
// between versions: store values that are never modified.
type ordered[V any] = immutable.SortedMap[string, V] // in key order

// keyed is a persistent map in no particular order: base's entries, changed by over's (a change
// sets a key's value, or removes the key: gone); n entries.
type keyed[V any] struct {
	base map[string]V
	over *immutable.Map[string, change[V]]
	n    int
}

// change is a version's change of one key of a keyed map.
type change[V any] struct {
	v    V
	gone bool
}

// Get returns the value of key k, and whether m has it.
func (m *keyed[V]) Get(k string) (V, bool) {
	if m.over != nil {
		if c, ok := m.over.Get(k); ok {
			return c.v, !c.gone
		}
	}
	v, ok := m.base[k]
	return v, ok
}

// Set returns m with key k set to v.
func (m *keyed[V]) Set(k string, v V) *keyed[V] {
	_, had := m.Get(k)
	n := *m
	if n.over == nil {
		n.over = immutable.NewMap[string, change[V]](nil)
	}
	n.over = n.over.Set(k, change[V]{v: v})
	if !had {
		n.n++
	}
	return &n
}

// Delete returns m without key k.
func (m *keyed[V]) Delete(k string) *keyed[V] {
	if _, had := m.Get(k); !had {
		return m
	}
	n := *m
	if _, inBase := n.base[k]; inBase {
		if n.over == nil {
			n.over = immutable.NewMap[string, change[V]](nil)
		}
		n.over = n.over.Set(k, change[V]{gone: true})
	} else {
		n.over = n.over.Delete(k)
	}
	n.n--
	return &n
}

// Len is the number of entries of m.
func (m *keyed[V]) Len() int { return m.n }

// valueAt returns the value of key in m, the zero value when there is none.
func valueAt[V any](m *keyed[V], key string) V {
	v, _ := m.Get(key)
	return v
}

// keyedOf is m as a persistent map: its base, which no one may write afterwards.
func keyedOf[V any](m map[string]V) keyed[V] { return keyed[V]{base: m, n: len(m)} }

// entries yields the entries of m, in no particular order.
func entries[V any](m *keyed[V]) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.over != nil {
			for it := m.over.Iterator(); !it.Done(); {
				if k, c, _ := it.Next(); !c.gone && !yield(k, c.v) {
					return
				}
			}
		}
		for k, v := range m.base {
			if m.over != nil {
				if _, changed := m.over.Get(k); changed {
					continue
				}
			}
			if !yield(k, v) {
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
