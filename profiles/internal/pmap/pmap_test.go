package pmap

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMapIsAMap: a Map frozen from a build (over a Go map, Of, or an index of positions, At) or
// empty, changed by versions (Set, Delete), holds what a Go map changed the same way holds, its Len
// included, and each version stays what it was.
func TestMapIsAMap(t *testing.T) {
	for name, frozen := range map[string]func(map[int]string) Map[int, string]{
		"over a map": func(m map[int]string) Map[int, string] { return Of(maps.Clone(m)) },
		"over positions": func(m map[int]string) Map[int, string] {
			at, vals := map[int]int{}, []string{}
			for k, v := range m {
				at[k] = len(vals)
				vals = append(vals, v)
			}
			return At(at, vals)
		},
		"empty": func(map[int]string) Map[int, string] { return Map[int, string]{} },
	} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			want := map[int]string{}
			if name != "empty" {
				for k := 0; k < 50; k++ {
					want[k] = fmt.Sprint("built ", k)
				}
			}
			m := frozen(want)
			type version struct {
				m    Map[int, string]
				want map[int]string
			}
			var versions []version
			for step := 0; step < 2000; step++ {
				k := r.IntN(80)
				if r.IntN(3) == 0 {
					m = *m.Delete(k)
					delete(want, k)
				} else {
					m = *m.Set(k, fmt.Sprint("step ", step))
					want[k] = fmt.Sprint("step ", step)
				}
				if step%100 == 0 {
					versions = append(versions, version{m, maps.Clone(want)})
				}
			}
			versions = append(versions, version{m, want})
			for i, v := range versions {
				checkVersion(t, i, v.m, v.want)
			}
		})
	}
}

// checkVersion fails t unless m holds want.
func checkVersion(t *testing.T, i int, m Map[int, string], want map[int]string) {
	t.Helper()
	got := map[int]string{}
	for k, x := range m.All() {
		if _, twice := got[k]; twice {
			t.Fatalf("version %d: All yields %d twice", i, k)
		}
		got[k] = x
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("version %d: All (-map +Map):\n%s", i, diff)
	}
	if m.Len() != len(want) {
		t.Fatalf("version %d: Len %d, the map holds %d", i, m.Len(), len(want))
	}
	for k := 0; k < 80; k++ {
		x, ok := m.Get(k)
		if w, wok := want[k]; x != w || ok != wok {
			t.Fatalf("version %d: Get(%d) = %q, %v; the map holds %q, %v", i, k, x, ok, w, wok)
		}
	}
}
