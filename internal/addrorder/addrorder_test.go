package addrorder

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSort(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		objs := make([]*[24]byte, n)
		for i := range objs {
			objs[i] = new([24]byte)
		}
		rand.Shuffle(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
		want := slices.Clone(objs)
		slices.SortFunc(want, func(a, b *[24]byte) int { return cmp.Compare(addr(a), addr(b)) })
		Sort(objs)
		if !slices.Equal(objs, want) {
			t.Errorf("%d objects: not in address order", n)
		}
	}
}

func TestValuesAndKeys(t *testing.T) {
	m := map[string]*[24]byte{}
	for i := 0; i < 3000; i++ {
		m[fmt.Sprint(i)] = new([24]byte)
	}
	vs, ks := Values(m), Keys(m)
	if len(vs) != len(m) || len(ks) != len(m) {
		t.Fatalf("%d values and %d keys of %d entries", len(vs), len(ks), len(m))
	}
	for i := range vs {
		if i > 0 && addr(vs[i-1]) >= addr(vs[i]) {
			t.Fatalf("values %d and %d not in address order", i-1, i)
		}
		if m[ks[i]] != vs[i] {
			t.Fatalf("key %d (%s) is not the key of value %d", i, ks[i], i)
		}
	}
}
