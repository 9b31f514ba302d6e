package topology_test

import (
	"fmt"
	"testing"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// TestBuildListsInPathOrder: a build adds its paths in path order and so writes each target's list
// without sorting it; every list of a built (and of a compacted) graph is in path order, with no
// path twice, over churns with ListenerSets and every kind of route.
func TestBuildListsInPathOrder(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			c := gen.NewChurn(seed, policy.Builtin()[1])
			c.ListenerSets = true
			o := withListenerSets()
			g := topology.Build(o.input())
			for step := 0; step < 150; step++ {
				g = o.apply(g, c.Next())
				if step%10 != 9 {
					continue
				}
				for name, b := range map[string]*topology.Graph{"built": topology.Build(o.input()), "compacted": g.Compact()} {
					for id := range b.TargetIDs() {
						tg := b.TargetOfID(int32(id))
						ps := b.PathsFor(tg)
						for j := 1; j < len(ps); j++ {
							if b.ComparePaths(ps[j-1], ps[j]) >= 0 {
								t.Fatalf("step %d: the %s graph lists the paths of %s out of order: %v before %v", step, name, tg, b.Paths[ps[j-1]], b.Paths[ps[j]])
							}
						}
					}
				}
			}
		})
	}
}
