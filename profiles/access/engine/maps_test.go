package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeyedIsAMap: a keyed map frozen from a build's Go map (keyedOf) or empty, changed by versions
// (Set, Delete), holds what a Go map changed the same way holds, its Len included, and each version
// stays what it was.
func TestKeyedIsAMap(t *testing.T) {
	for name, built := range map[string]int{"over a map": 50, "empty": 0} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			want := map[string]int{}
			for k := 0; k < built; k++ {
				want[fmt.Sprint(k)] = -k
			}
			m := keyedOf(maps.Clone(want))
			if built == 0 {
				m = keyed[int]{}
			}
			type version struct {
				m    keyed[int]
				want map[string]int
			}
			var versions []version
			for step := 0; step < 2000; step++ {
				k := fmt.Sprint(r.IntN(80))
				if r.IntN(3) == 0 {
					m = *m.Delete(k)
					delete(want, k)
				} else {
					m = *m.Set(k, step)
					want[k] = step
				}
				if step%100 == 0 {
					versions = append(versions, version{m, maps.Clone(want)})
				}
			}
			versions = append(versions, version{m, want})
			for i, v := range versions {
				if diff := cmp.Diff(v.want, contents(v.m)); diff != "" {
					t.Fatalf("version %d: entries (-map +keyed):\n%s", i, diff)
				}
				if v.m.Len() != len(v.want) {
					t.Fatalf("version %d: Len %d, the map holds %d", i, v.m.Len(), len(v.want))
				}
				for k := 0; k < 80; k++ {
					x, ok := v.m.Get(fmt.Sprint(k))
					if w, wok := v.want[fmt.Sprint(k)]; x != w || ok != wok {
						t.Fatalf("version %d: Get(%d) = %d, %v; the map holds %d, %v", i, k, x, ok, w, wok)
					}
				}
			}
		})
	}
}
