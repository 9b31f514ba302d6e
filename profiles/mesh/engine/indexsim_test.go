package engine

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

// TestSourceSetsCountAsOneMergePerGroup: merging a class's from entries once per set of entries
// that selects a group, weighted by the set's groups, sums to the outcomes of one merge per group,
// over random worlds of every index kind.
func TestSourceSetsCountAsOneMergePerGroup(t *testing.T) {
	kinds := []string{KindMeshTimeout + "." + PrecedentGroup, KindMeshTrafficPermission + "." + PrecedentGroup, kumaTimeout, kumaPermission}
	merged, shared := 0, 0
	for _, kind := range kinds {
		for seed := int64(1); seed <= 20; seed++ {
			w := &meshWorld{tb: t, kind: kind, rng: rand.New(rand.NewSource(seed)), tops: map[string]string{}}
			var ps []Policy
			var dps []Dataplane
			for i := 0; i < 12; i++ {
				ps = append(ps, w.policy(fmt.Sprintf("p-%d", i)))
				dps = append(dps, w.dataplane())
			}
			x := NewIndex(kind, ps, dps)
			reps := x.repSources()
			for it := x.classes.Iterator(); !it.Done(); {
				sig, c, _ := it.Next()
				entries := Entries(c.ordered, From)
				if len(entries) == 0 {
					continue
				}
				want := map[elemKey]*counts{}
				for _, s := range reps {
					count(entries, From, s, 1, want)
				}
				got := map[elemKey]*counts{}
				sets := sourceSets(entries, reps)
				for _, set := range sets {
					count(entries, From, set.rep, set.n, got)
				}
				merged++
				if len(sets) < len(reps) {
					shared++
				}
				if !reflect.DeepEqual(want, got) {
					t.Errorf("%s seed %d class %s: weighted sets %s, one merge per group %s", kind, seed, sig, fmtCounts(got), fmtCounts(want))
				}
			}
		}
	}
	if shared == 0 {
		t.Errorf("no class of %d had two groups in one set: the comparison says nothing", merged)
	}
}

func fmtCounts(m map[elemKey]*counts) string {
	out := "{"
	for k, c := range m {
		out += fmt.Sprintf(" %s/%d/%d: %d %d %v", k.p.Name, k.d, k.i, c.selected, c.effective, c.by)
	}
	return out + " }"
}
