package mesh

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPmapAgreesWithMap: random sets and deletes, some in place under an edit token, give the
// contents a Go map gives, and every earlier version published keeps its contents. Keys are few
// and colliding hashes are forced by a small key space, so leaves split and collapse often.
func TestPmapAgreesWithMap(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var m pmap[string, int]
		want := map[string]int{}
		type version struct {
			m    pmap[string, int]
			want map[string]int
		}
		var versions []version
		var edit *pedit
		for step := 0; step < 2000; step++ {
			if step%50 == 0 { // publish: a new token for the next edits (nil for some)
				versions = append(versions, version{m, copyMap(want)})
				edit = nil
				if rng.Intn(2) == 0 {
					edit = new(pedit)
				}
			}
			k := fmt.Sprintf("k%d", rng.Intn(300))
			if rng.Intn(3) == 0 {
				m = m.del(edit, k)
				delete(want, k)
			} else {
				m = m.set(edit, k, step)
				want[k] = step
			}
		}
		versions = append(versions, version{m, want})
		for i, v := range versions {
			got := map[string]int{}
			for k, n := range v.m.all() {
				got[k] = n
			}
			if diff := cmp.Diff(v.want, got); diff != "" {
				t.Fatalf("seed %d, version %d: contents (-want +got):\n%s", seed, i, diff)
			}
			if v.m.len() != len(v.want) {
				t.Fatalf("seed %d, version %d: len = %d, want %d", seed, i, v.m.len(), len(v.want))
			}
			for k, n := range v.want {
				if got, ok := v.m.get(k); !ok || got != n {
					t.Fatalf("seed %d, version %d: get(%s) = %d, %v; want %d", seed, i, k, got, ok, n)
				}
			}
			if _, ok := v.m.get("absent"); ok {
				t.Fatalf("seed %d, version %d: get(absent) found it", seed, i)
			}
		}
	}
}

func copyMap(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
