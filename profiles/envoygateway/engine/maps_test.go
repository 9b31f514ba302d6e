package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPmapIsAMap: a pmap frozen from a build (over a Go map, pmapOf, or an index of positions,
// pmapAt) and changed by steps (set, del) holds what a Go map changed the same way holds, and each
// version stays what it was.
func TestPmapIsAMap(t *testing.T) {
	for name, frozen := range map[string]func(map[int]string) pmap[int, string]{
		"over a map": func(m map[int]string) pmap[int, string] { return pmapOf(maps.Clone(m)) },
		"over positions": func(m map[int]string) pmap[int, string] {
			at, vals := map[int]int{}, []string{}
			for k, v := range m {
				at[k] = len(vals)
				vals = append(vals, v)
			}
			return pmapAt(at, vals)
		},
		"empty": func(map[int]string) pmap[int, string] { return pmap[int, string]{} },
	} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			want := map[int]string{}
			if name != "empty" {
				for k := 0; k < 50; k++ {
					want[k] = fmt.Sprint("built ", k)
				}
			}
			p := frozen(want)
			type version struct {
				p    pmap[int, string]
				want map[int]string
			}
			var versions []version
			for step := 0; step < 2000; step++ {
				k := r.IntN(80)
				if r.IntN(3) == 0 {
					p = p.del(k)
					delete(want, k)
				} else {
					v := fmt.Sprint("step ", step)
					p = p.set(k, v)
					want[k] = v
				}
				if step%100 == 0 {
					versions = append(versions, version{p, maps.Clone(want)})
				}
			}
			versions = append(versions, version{p, want})
			for i, v := range versions {
				got := map[int]string{}
				for k, x := range v.p.all() {
					if _, twice := got[k]; twice {
						t.Fatalf("version %d: all yields %d twice", i, k)
					}
					got[k] = x
				}
				if diff := cmp.Diff(v.want, got); diff != "" {
					t.Fatalf("version %d: all (-map +pmap):\n%s", i, diff)
				}
				for k := 0; k < 80; k++ {
					x, ok := v.p.lookup(k)
					if w, wok := v.want[k]; x != w || ok != wok || v.p.get(k) != w {
						t.Fatalf("version %d: lookup(%d) = %q, %v; the map holds %q, %v", i, k, x, ok, w, wok)
					}
				}
			}
		})
	}
}
