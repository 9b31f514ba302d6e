package effective

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

func TestItemKeyBeneath(t *testing.T) {
	key := ItemKey{Gateway: "infra/gw", Listener: "http", Route: "shop/cart", Rule: "0"}
	for _, tc := range []struct {
		target topology.Target
		want   bool
	}{
		{topology.Target{Kind: "GatewayClass", Name: "any"}, true},
		{topology.Target{Kind: "Gateway", Namespace: "infra", Name: "gw"}, true},
		{topology.Target{Kind: "Gateway", Namespace: "infra", Name: "other"}, false},
		{topology.Target{Kind: "Gateway", Namespace: "shop", Name: "cart"}, false}, // a Gateway named like the route
		{topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "cart"}, true},
		{topology.Target{Kind: "GRPCRoute", Namespace: "shop", Name: "cart"}, true}, // paths name a route by namespace/name
		{topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "pay"}, false},
		{topology.Target{Kind: "TCPRoute", Namespace: "shop", Name: "cart"}, false},
		{topology.Target{Kind: "ListenerSet", Namespace: "shop", Name: "cart"}, false},
	} {
		if got := key.Beneath(tc.target); got != tc.want {
			t.Errorf("Beneath(%s) = %t, want %t", tc.target, got, tc.want)
		}
	}
}

// TestReachedMatchesLevels: Reached (by the paths' target numbers) lists the paths whose Levels (by
// target) are not empty, on generated worlds, on views with a policy written or removed, and on
// snapshots updated and rebased, every policy's targets included.
func TestReachedMatchesLevels(t *testing.T) {
	eachGenerated(t, func(seed int64, _ *mentionsWorld, policies []*policy.Policy, snap *Snapshot) {
		views := map[string]*Snapshot{"built": snap}
		if len(policies) > 0 {
			first, last := policies[0], policies[len(policies)-1]
			views["without the first"] = snap.Without(first.Ref)
			views["with the last again"] = snap.With(last)
			views["the first removed by an update"] = snap.Update(first.Ref, nil)
			views["rebased"] = snap.Update(first.Ref, nil).Rebase(snap.Graph.Compact())
		}
		for name, s := range views {
			var want []int
			for _, i := range s.PathIndexes() {
				if len(s.Levels(s.Graph.Paths[i])) > 0 {
					want = append(want, i)
				}
			}
			if diff := cmp.Diff(want, s.Reached(nil)); diff != "" {
				t.Errorf("seed %d, %s: Reached (-by levels +got):\n%s", seed, name, diff)
			}
			for _, p := range policies {
				for _, tg := range TargetsOf(p) {
					var want []int
					for _, i := range s.PathsFor(tg) {
						if len(s.Levels(s.Graph.Paths[i])) > 0 {
							want = append(want, i)
						}
					}
					if diff := cmp.Diff(want, s.Reached(&tg)); diff != "" {
						t.Errorf("seed %d, %s, beneath %s: Reached (-by levels +got):\n%s", seed, name, tg, diff)
					}
				}
			}
		}
	})
}
