package engine

import (
	"math/rand"
	"testing"

	"github.com/benbjohnson/immutable"
)

// TestElemOrderKeepsBucketsSorted: a bucket's members (an immutable.SortedMap under elemOrder)
// stay in elemOrder through random sets and deletes of elements of a few policies, so a warning
// names the first heads of each bucket. immutable's sorted map reads any comparison other than -1
// as "not less": a comparer returning -2 for two elements of one policy left them out of order.
func TestElemOrderKeepsBucketsSorted(t *testing.T) {
	var ps []*Policy
	for _, n := range []string{"p-0", "p-1", "p-2", "p-3"} {
		ps = append(ps, &Policy{Kind: KindMeshTimeout, Namespace: "kuma-system", Name: n, TargetRef: TargetRef{Kind: Service, Name: "web"}})
	}
	rng := rand.New(rand.NewSource(1))
	m := immutable.NewSortedMap[elemKey, struct{}](elemOrder{})
	for step := 0; step < 2000; step++ {
		k := elemKey{p: ps[rng.Intn(len(ps))], d: Direction(rng.Intn(2)), i: rng.Intn(4)}
		if rng.Intn(2) == 0 {
			m = m.Set(k, struct{}{})
		} else {
			m = m.Delete(k)
		}
		var prev *elemKey
		for it := m.Iterator(); !it.Done(); {
			k, _, _ := it.Next()
			if prev != nil && (elemOrder{}).Compare(*prev, k) >= 0 {
				t.Fatalf("step %d: %s of %s listed before %s of %s", step, ElementPath(prev.d, prev.i), prev.p.Name, ElementPath(k.d, k.i), k.p.Name)
			}
			prev = &k
		}
	}
}
