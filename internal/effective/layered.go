package effective

// layered is a map kept as a base, shared by the versions of a snapshot, and the entries changed
// since, so that a version copies only the changes (a few per policy written) rather than the map
// of thousands of policies; past a bound the changes are folded into a new base, a copy for every
// some hundreds of versions.
type layered[K comparable, V any] struct {
	base  map[K]V
	delta map[K]change[V]
}

// change is a changed entry: its value, or ok false when removed.
type change[V any] struct {
	v  V
	ok bool
}

func (m layered[K, V]) get(k K) (V, bool) {
	if c, ok := m.delta[k]; ok {
		return c.v, c.ok
	}
	v, ok := m.base[k]
	return v, ok
}

// each calls f on every entry, in no order.
func (m layered[K, V]) each(f func(K, V)) {
	for k, v := range m.base {
		if _, changed := m.delta[k]; !changed {
			f(k, v)
		}
	}
	for k, c := range m.delta {
		if c.ok {
			f(k, c.v)
		}
	}
}

// size bounds the number of entries from above (removed ones may count).
func (m layered[K, V]) size() int { return len(m.base) + len(m.delta) }

// with returns m with the changes made; m stays as it was.
func (m layered[K, V]) with(changes map[K]change[V]) layered[K, V] {
	if len(changes) == 0 {
		return m
	}
	if len(m.delta)+len(changes) > 64+len(m.base)/16 {
		base := make(map[K]V, len(m.base)+len(m.delta)+len(changes))
		m.each(func(k K, v V) { base[k] = v })
		for k, c := range changes {
			if c.ok {
				base[k] = c.v
			} else {
				delete(base, k)
			}
		}
		return layered[K, V]{base: base}
	}
	delta := make(map[K]change[V], len(m.delta)+len(changes))
	for k, c := range m.delta {
		delta[k] = c
	}
	for k, c := range changes {
		delta[k] = c
	}
	return layered[K, V]{base: m.base, delta: delta}
}
