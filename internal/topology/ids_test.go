package topology

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDIndexMatchesMap numbers targets through idIndex's versions, as a build and then updates
// do, and checks every version against the map keyed by Target it replaced (the numbers it gave
// then), old versions included: an edit leaves the version it started from as it was.
func TestIDIndexMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"GatewayClass", "Gateway", "ListenerSet", "HTTPRoute", "GRPCRoute"}
	target := func() Target {
		t := Target{Kind: kinds[rng.IntN(len(kinds))], Namespace: fmt.Sprintf("ns-%d", rng.IntN(20)), Name: fmt.Sprintf("n-%d", rng.IntN(300))}
		if rng.IntN(2) == 0 {
			t.Section = fmt.Sprintf("s-%d", rng.IntN(4))
		}
		return t
	}
	type version struct {
		x       idIndex
		targets []Target
		want    map[Target]int32
	}
	var versions []version
	cur := version{want: map[Target]int32{}}
	for step := range 60 {
		e := cur.x.edit()
		if step == 0 {
			e.reserve(500)
		}
		targets := append([]Target(nil), cur.targets...)
		want := make(map[Target]int32, len(cur.want))
		for k, v := range cur.want {
			want[k] = v
		}
		for range 1 + rng.IntN(400) {
			tg := target()
			id, ok, h := e.find(tg, targets)
			if wid, wok := want[tg]; ok != wok || id != wid {
				t.Fatalf("step %d: find(%v) = %d, %v; the map says %d, %v", step, tg, id, ok, wid, wok)
			}
			if !ok {
				id = int32(len(targets))
				targets = append(targets, tg)
				e.setAt(h, id)
				want[tg] = id
			}
		}
		versions = append(versions, cur)
		cur = version{x: e.done(), targets: targets, want: want}
	}
	versions = append(versions, cur)
	for n, v := range versions {
		for tg, id := range v.want {
			if got, ok := v.x.get(tg, v.targets); !ok || got != id {
				t.Fatalf("version %d: get(%v) = %d, %v, want %d", n, tg, got, ok, id)
			}
		}
		for range 200 {
			tg := target()
			if _, known := v.want[tg]; known {
				continue
			}
			if got, ok := v.x.get(tg, v.targets); ok {
				t.Fatalf("version %d: get(%v) = %d for a target it never numbered", n, tg, got)
			}
		}
	}
}
