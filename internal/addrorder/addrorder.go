package addrorder

import "unsafe"

// Why: an informer decodes the objects of its list one after the other, so their addresses follow
// the order they came in, and Go's collector does not move them. Walked in a map's order (none), a
// build reads each object at a random place: once the cluster outgrows the caches, a cache and TLB
// miss per object, with nothing for the hardware to prefetch. Walked in address order, it reads the
// heap forward.

// Sort sorts objs by address in place.
func Sort[T any](objs []*T) { sortBy(objs, addr[T]) }

// Values lists the values of m in address order.
func Values[K comparable, T any](m map[K]*T) []*T {
	out := make([]*T, 0, len(m))
	for _, o := range m {
		out = append(out, o)
	}
	Sort(out)
	return out
}

// Keys lists the keys of m in the address order of their values.
func Keys[K comparable, T any](m map[K]*T) []K {
	type entry struct {
		k K
		v *T
	}
	es := make([]entry, 0, len(m))
	for k, v := range m {
		es = append(es, entry{k, v})
	}
	sortBy(es, func(e entry) uintptr { return addr(e.v) })
	out := make([]K, len(es))
	for i, e := range es {
		out[i] = e.k
	}
	return out
}

// bits is the width of a digit of the radix sort: three passes for addresses within 8 GiB of each
// other, one for a few hundred objects of a fresh heap.
const bits = 11

// sortBy sorts s by address a in place: a radix sort on the bits in which the addresses differ.
func sortBy[E any](s []E, a func(E) uintptr) {
	if len(s) < 2 {
		return
	}
	lo, hi := a(s[0]), a(s[0])
	for _, e := range s[1:] {
		x := a(e)
		lo, hi = min(lo, x), max(hi, x)
	}
	src, dst := s, make([]E, len(s))
	var count [1 << bits]int
	for shift := uint(0); (hi-lo)>>shift > 0; shift += bits {
		count = [1 << bits]int{}
		for _, e := range src {
			count[(a(e)-lo)>>shift&(1<<bits-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, e := range src {
			d := (a(e) - lo) >> shift & (1<<bits - 1)
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

func addr[T any](o *T) uintptr { return uintptr(unsafe.Pointer(o)) }
