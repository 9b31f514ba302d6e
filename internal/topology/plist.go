package topology

import "slices"

// plist is the list of paths beneath one target, in path order, in chunks that the versions of a
// graph share: a change rewrites the chunks it falls in and the table of chunks, so adding a route
// costs the same whether its GatewayClass has a hundred paths or a hundred thousand.
type plist [][]int

// listChunk is the size chunks are split to; a chunk grows to twice that before it is split.
const listChunk = 256

// flat is the list as one slice (the only chunk itself when there is one: read only).
func (l plist) flat() []int {
	switch len(l) {
	case 0:
		return nil
	case 1:
		return l[0]
	}
	n := 0
	for _, c := range l {
		n += len(c)
	}
	out := make([]int, 0, n)
	for _, c := range l {
		out = append(out, c...)
	}
	return out
}

// first is the first path of the list; false when it is empty.
func (l plist) first() (int, bool) {
	if len(l) == 0 {
		return 0, false
	}
	return l[0][0], true
}

// chunkOf is the chunk path i belongs in: the first whose last path is not before i, else the last.
func (l plist) chunkOf(i int, cmp func(int, int) int) int {
	c, _ := slices.BinarySearchFunc(l, i, func(ch []int, t int) int { return cmp(ch[len(ch)-1], t) })
	return min(c, len(l)-1)
}

// contains reports whether path i is in the list.
func (l plist) contains(i int, cmp func(int, int) int) bool {
	if len(l) == 0 {
		return false
	}
	ch := l[l.chunkOf(i, cmp)]
	at, found := slices.BinarySearchFunc(ch, i, cmp)
	return found && ch[at] == i
}

// with returns the list with the paths of add (in path order) in and those of drop out, sharing the
// chunks neither touches.
func (l plist) with(add []int, drop map[int]bool, cmp func(int, int) int) plist {
	if len(l) == 0 && len(drop) == 0 {
		return split(nil, add) // a new target's list (the editor lets go of add)
	}
	if len(l) == 0 {
		var live []int
		for _, i := range add {
			if !drop[i] {
				live = append(live, i)
			}
		}
		return split(nil, live)
	}
	type ops struct {
		add  []int
		drop map[int]bool
	}
	byChunk := map[int]*ops{}
	at := func(c int) *ops {
		o := byChunk[c]
		if o == nil {
			o = &ops{}
			byChunk[c] = o
		}
		return o
	}
	for i := range drop {
		o := at(l.chunkOf(i, cmp))
		if o.drop == nil {
			o.drop = map[int]bool{}
		}
		o.drop[i] = true
	}
	for _, i := range add {
		if !drop[i] {
			o := at(l.chunkOf(i, cmp))
			o.add = append(o.add, i)
		}
	}
	out := make(plist, 0, len(l)+1)
	for c, ch := range l {
		o, ok := byChunk[c]
		if !ok {
			out = append(out, ch)
			continue
		}
		out = split(out, mergeSorted(ch, o.add, o.drop, cmp))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// split appends list to l in chunks of listChunk (the last up to twice that).
func split(l plist, list []int) plist {
	for len(list) > 2*listChunk {
		l = append(l, list[:listChunk:listChunk])
		list = list[listChunk:]
	}
	if len(list) > 0 {
		l = append(l, list)
	}
	return l
}

// mergeSorted is old (in path order) with add (in path order) in and drop out, as a new slice. The
// places of both are found by binary search (a dropped path keeps its place in path order).
func mergeSorted(old, add []int, drop map[int]bool, cmp func(int, int) int) []int {
	type cut struct {
		at   int
		drop bool
		add  int // index in add, when not drop
	}
	cuts := make([]cut, 0, len(drop)+len(add))
	for i := range drop {
		if at, ok := slices.BinarySearchFunc(old, i, cmp); ok && old[at] == i {
			cuts = append(cuts, cut{at: at, drop: true})
		}
	}
	for j, i := range add {
		at, _ := slices.BinarySearchFunc(old, i, cmp)
		cuts = append(cuts, cut{at: at, add: j})
	}
	slices.SortFunc(cuts, func(a, b cut) int {
		if a.at != b.at {
			return a.at - b.at
		}
		if a.drop != b.drop { // the added paths go in before old[at], dropped or not
			if a.drop {
				return 1
			}
			return -1
		}
		return a.add - b.add
	})
	out := make([]int, 0, len(old)+len(add))
	from := 0
	for _, c := range cuts {
		out = append(out, old[from:c.at]...)
		from = c.at
		if c.drop {
			from++
		} else {
			out = append(out, add[c.add])
		}
	}
	return append(out, old[from:]...)
}
