package topology

import "hash/maphash"

// idIndex finds the number of a target. It is a hash table of numbers only, in shards that the
// versions of a graph share as pmap's are shared: a slot holds a target's number and 32 bits of its
// hash, and the target itself is read from the graph's targets (only when the bits match). A map
// keyed by Target held four strings per entry (72 bytes a slot, every one a pointer for the
// collector to mark) and copied a shard by rehashing it; a slot here is 8 bytes with no pointer,
// and a shard is copied with one copy. Numbers are never removed (see Graph), so the table only
// grows.
type idIndex struct {
	s *[shards][]idSlot
}

// idSlot is an entry: id is the target's number plus one (0: the slot is free), tag bits 8 to 39
// of its hash, whose low bits are also its first slot (bits 0 to 7 choose the shard).
type idSlot struct {
	tag, id uint32
}

// targetHash is the hash of t, from which idIndex takes the shard and the tag.
func targetHash(t Target) uint64 { return maphash.Comparable(shardSeed, t) }

// get is the number of t; targets are the graph's (targets[id] is the target of number id).
func (x idIndex) get(t Target, targets []Target) (int32, bool) {
	if x.s == nil {
		return 0, false
	}
	h := targetHash(t)
	id, ok := find(x.s[h%shards], uint32(h>>8), t, targets)
	return id, ok
}

// find looks t, whose tag is tag, up in table (a power of two long, or empty).
func find(table []idSlot, tag uint32, t Target, targets []Target) (int32, bool) {
	if len(table) == 0 {
		return 0, false
	}
	mask := uint32(len(table) - 1)
	for i := tag & mask; ; i = (i + 1) & mask {
		s := table[i]
		if s.id == 0 {
			return 0, false
		}
		if s.tag == tag && targets[s.id-1] == t {
			return int32(s.id - 1), true
		}
	}
}

// idIndexEdit writes a new version of an idIndex: each shard is copied once, on its first write.
type idIndexEdit struct {
	x     idIndex
	table bool // x.s is this edit's own copy
	// used counts the entries of the shards this edit owns (by shard; made on the first write: an
	// update writes a shard or two, and an array of them cost every edit a kilobyte).
	used map[int]int32
}

func (x idIndex) edit() *idIndexEdit { return &idIndexEdit{x: x} }

func (e *idIndexEdit) get(t Target, targets []Target) (int32, bool) { return e.x.get(t, targets) }

// find is get, with t's hash for setAt: a caller that numbers what it did not find hashes t once.
func (e *idIndexEdit) find(t Target, targets []Target) (int32, bool, uint64) {
	h := targetHash(t)
	if e.x.s == nil {
		return 0, false, h
	}
	id, ok := find(e.x.s[h%shards], uint32(h>>8), t, targets)
	return id, ok, h
}

// setAt records number id for the target of hash h (find), which the index does not hold.
func (e *idIndexEdit) setAt(h uint64, id int32) {
	i := int(h % shards)
	table := e.own(i, 1)
	put(table, idSlot{tag: uint32(h >> 8), id: uint32(id) + 1})
	e.used[i]++
}

// put writes s to the first free slot of its probe sequence in table.
func put(table []idSlot, s idSlot) {
	mask := uint32(len(table) - 1)
	i := s.tag & mask
	for table[i].id != 0 {
		i = (i + 1) & mask
	}
	table[i] = s
}

// own makes shard i this edit's own, with room for more entries: a table is kept at most half
// full, so that a lookup that misses stops after a slot or two.
func (e *idIndexEdit) own(i, more int) []idSlot {
	if !e.table {
		t := new([shards][]idSlot)
		if e.x.s != nil {
			*t = *e.x.s
		}
		e.x.s, e.table = t, true
	}
	old := e.x.s[i]
	n, owned := e.used[i]
	if !owned {
		if e.used == nil {
			e.used = map[int]int32{}
		}
		n = int32(count(old))
		e.used[i] = n
	}
	want := 2 * (int(n) + more)
	if owned && len(old) >= want {
		return old
	}
	size := max(len(old), 8)
	for size < want {
		size *= 2
	}
	table := make([]idSlot, size)
	if size == len(old) {
		copy(table, old)
	} else {
		for _, s := range old {
			if s.id != 0 {
				put(table, s)
			}
		}
	}
	e.x.s[i] = table
	return table
}

// count is the number of entries of table.
func count(table []idSlot) int {
	n := 0
	for _, s := range table {
		if s.id != 0 {
			n++
		}
	}
	return n
}

// reserve sizes the shards of an empty index for about n entries, so that a build does not grow
// them from empty.
func (e *idIndexEdit) reserve(n int) {
	if e.x.s != nil {
		return
	}
	for i := range shards {
		e.own(i, n/shards+1)
	}
}

func (e *idIndexEdit) done() idIndex { return e.x }
