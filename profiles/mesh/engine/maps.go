package engine

import (
	"hash/maphash"
	"slices"

	"github.com/benbjohnson/immutable"
)

// An Index keeps its parts in persistent maps (github.com/benbjohnson/immutable): Set and Delete
// return a new map sharing all but the path to the key with the old one, which stays valid and
// unchanged for its readers. They are made by newMap, with hash/maphash's hashes.

// keySet is a persistent set of strings.
type keySet = immutable.Map[string, struct{}]

// hasher hashes keys with hash/maphash (immutable's own hashers take only integers and strings).
type hasher[K comparable] struct{}

var hashSeed = maphash.MakeSeed()

func (hasher[K]) Hash(k K) uint32   { return uint32(maphash.Comparable(hashSeed, k)) }
func (hasher[K]) Equal(a, b K) bool { return a == b }

// newMap returns an empty map hashing its keys with hasher.
func newMap[K comparable, V any]() immutable.Map[K, V] { return *immutable.NewMap[K, V](hasher[K]{}) }

// setsOf is m as a persistent map of persistent sets, built in place.
func setsOf(m map[string][]string) immutable.Map[string, keySet] {
	b := immutable.NewMapBuilder[string, keySet](hasher[string]{})
	for k, s := range m {
		b.Set(k, keySetOf(s))
	}
	return *b.Map()
}

// keySetOf is the members of l as a persistent set, built in place.
func keySetOf(l []string) keySet {
	b := immutable.NewMapBuilder[string, struct{}](hasher[string]{})
	for _, k := range l {
		b.Set(k, struct{}{})
	}
	return *b.Map()
}

// setAdd returns idx with member added to the set under key.
func setAdd(idx immutable.Map[string, keySet], key, member string) immutable.Map[string, keySet] {
	s, ok := idx.Get(key)
	if !ok {
		s = newMap[string, struct{}]()
	}
	return *idx.Set(key, *s.Set(member, struct{}{}))
}

// reindex returns idx with member moved from the sets under keys[0] to those under keys[1], changing
// only the sets of the keys in one list and not the other.
func reindex(idx immutable.Map[string, keySet], member string, keys [2][]string) immutable.Map[string, keySet] {
	for _, k := range keys[0] {
		if !slices.Contains(keys[1], k) {
			idx = setRemove(idx, k, member)
		}
	}
	for _, k := range keys[1] {
		if !slices.Contains(keys[0], k) {
			idx = setAdd(idx, k, member)
		}
	}
	return idx
}

// setRemove returns idx with member removed from the set under key (and the key dropped when its
// set is empty).
func setRemove(idx immutable.Map[string, keySet], key, member string) immutable.Map[string, keySet] {
	s, ok := idx.Get(key)
	if !ok {
		return idx
	}
	if s = *s.Delete(member); s.Len() == 0 {
		return *idx.Delete(key)
	}
	return *idx.Set(key, s)
}
