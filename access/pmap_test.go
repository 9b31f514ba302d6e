package access

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPmapMatchesMap applies random sets and deletes to a pmap and to a Go map and compares them after
// every step; every version kept must still hold what it held when it was made.
func TestPmapMatchesMap(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		var m pmap[int]
		want := map[string]int{}
		type version struct {
			m    pmap[int]
			want map[string]int
		}
		var kept []version
		keys := 50 + r.Intn(2000)
		for step := 0; step < 3000; step++ {
			k := fmt.Sprintf("key-%d", r.Intn(keys))
			if r.Intn(3) == 0 {
				m = m.Delete(k)
				delete(want, k)
			} else {
				m = m.Set(k, step)
				want[k] = step
			}
			if step%300 == 0 {
				kept = append(kept, version{m, maps.Clone(want)})
			}
		}
		kept = append(kept, version{m, want})
		for i, v := range kept {
			if diff := cmp.Diff(v.want, contents(v.m)); diff != "" {
				t.Fatalf("seed %d version %d (-want +got):\n%s", seed, i, diff)
			}
			if v.m.Len() != len(v.want) {
				t.Fatalf("seed %d version %d: Len %d, want %d", seed, i, v.m.Len(), len(v.want))
			}
			for k, x := range v.want {
				if got, ok := v.m.Get(k); !ok || got != x {
					t.Fatalf("seed %d version %d: Get(%q) = %d, %v; want %d", seed, i, k, got, ok, x)
				}
			}
			if _, ok := v.m.Get("absent"); ok {
				t.Fatalf("seed %d version %d: an absent key found", seed, i)
			}
		}
	}
}

// TestPmapCollisions stores keys whose hashes are equal (a trie of hash 0 throughout) and deletes them.
func TestPmapCollisions(t *testing.T) {
	var n *pnode[int]
	for i := 0; i < 5; i++ {
		n, _ = n.set(0, 0, fmt.Sprint(i), i, false)
	}
	m := pmap[int]{root: n, n: 5}
	got := contents(m)
	if diff := cmp.Diff(map[string]int{"0": 0, "1": 1, "2": 2, "3": 3, "4": 4}, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for i := 0; i < 5; i++ {
		n, _ = n.del(0, 0, fmt.Sprint(i))
	}
	if n != nil {
		t.Errorf("a trie emptied of its colliding keys is not empty: %+v", n)
	}
}

func contents[V any](m pmap[V]) map[string]V {
	out := map[string]V{}
	m.Range(func(k string, v V) bool { out[k] = v; return true })
	return out
}

// TestOmapMatchesMap applies random sets and deletes to an omap and to a Go map, and compares every
// version kept, in key order.
func TestOmapMatchesMap(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		var m omap[int]
		want := map[string]int{}
		type version struct {
			m    omap[int]
			want map[string]int
		}
		var kept []version
		keys := 50 + r.Intn(2000)
		for step := 0; step < 3000; step++ {
			k := fmt.Sprintf("key-%d", r.Intn(keys))
			switch {
			case step >= 250 && r.Intn(3) == 0:
				m = m.Delete(k)
				delete(want, k)
			case step < 250: // building in key order: nothing shares m yet
				k = fmt.Sprintf("key-%06d", step/2)
				m.appendOwned(k, step, &slab[onode[int]]{})
				want[k] = step
			case step < 500: // building: nothing shares m yet
				m = m.Set(k, step, true)
				want[k] = step
			default:
				m = m.Set(k, step, false)
				want[k] = step
			}
			if step >= 500 && step%300 == 0 {
				kept = append(kept, version{m, maps.Clone(want)})
			}
		}
		kept = append(kept, version{m, want})
		for i, v := range kept {
			var keys []string
			got := map[string]int{}
			v.m.Ascend(func(k string, x int) bool { keys = append(keys, k); got[k] = x; return true })
			if diff := cmp.Diff(v.want, got); diff != "" {
				t.Fatalf("seed %d version %d (-want +got):\n%s", seed, i, diff)
			}
			if !slices.IsSorted(keys) || v.m.Len() != len(v.want) {
				t.Fatalf("seed %d version %d: keys out of order or Len %d for %d", seed, i, v.m.Len(), len(v.want))
			}
			for k, x := range v.want {
				if got, ok := v.m.Get(k); !ok || got != x {
					t.Fatalf("seed %d version %d: Get(%q) = %d, %v; want %d", seed, i, k, got, ok, x)
				}
			}
		}
	}
}

// TestPmapOf: a pmap built at once holds what was given and has the shape Set gives it.
func TestPmapOf(t *testing.T) {
	for _, n := range []int{0, 1, 2, 31, 33, 1000, 5000} {
		want := map[string]int{}
		var set pmap[int]
		for i := 0; i < n; i++ {
			k := fmt.Sprintf("k-%d", i)
			want[k] = i
			set = set.Set(k, i)
		}
		got := pmapOf(want)
		if diff := cmp.Diff(want, contents(got)); diff != "" || got.Len() != n {
			t.Fatalf("%d entries (-want +got), Len %d:\n%s", n, got.Len(), diff)
		}
		if diff := cmp.Diff(set, got, cmp.AllowUnexported(pmap[int]{}, pnode[int]{}, pslot[int]{})); diff != "" {
			t.Errorf("%d entries: shape differs from Set's (-Set +pmapOf):\n%s", n, diff)
		}
		for k, v := range want {
			if x, ok := got.Get(k); !ok || x != v {
				t.Fatalf("%d entries: Get(%q) = %d, %v", n, k, x, ok)
			}
		}
	}
}
