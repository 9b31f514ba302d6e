package validate

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// narrowWorld makes random policies over a generated topology: rule ids from a small pool so that
// they meet, bare rules, defaults and overrides of either strategy, when conditions, unsets,
// sectionName targets, and big merge policies on the Gateways.
type narrowWorld struct {
	rnd  *rand.Rand
	kind policy.Kind
	n    int
}

var narrowConds = []string{"self.limits.size() > 3", "has(self.limits.r1)", "has(self.limits.r2) && self.limits.r2.rates[0].limit > 10"}

func (g *narrowWorld) block(n int, prefix string, merge bool) *policy.Block {
	b := &policy.Block{Strategy: policy.StrategyAtomic, Rules: map[string]interface{}{}}
	if merge || g.rnd.Intn(2) == 0 {
		b.Strategy = policy.StrategyMerge
	}
	for len(b.Rules) < n {
		id := fmt.Sprintf("r%d", g.rnd.Intn(8))
		if prefix != "" && g.rnd.Intn(8) > 0 {
			id = fmt.Sprintf("%s%d", prefix, len(b.Rules))
		}
		b.Rules[id] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(g.rnd.Intn(30)), "window": "1m"}}}
	}
	if g.rnd.Intn(5) == 0 {
		b.When = narrowConds[g.rnd.Intn(len(narrowConds))]
	}
	return b
}

// policy is a random policy on target (kind, name, section) in ns; big ones have 200 merge rules.
func (g *narrowWorld) policy(ns, kind, name, section string, big bool) *policy.Policy {
	g.n++
	p := &policy.Policy{
		Kind: g.kind, Ref: policy.Ref{Namespace: ns, Name: fmt.Sprintf("p-%d", g.n)},
		Created: time.Unix(int64(g.rnd.Intn(5)), 0),
		Targets: []policy.TargetRef{{Group: topology.Group, Kind: kind, Name: name, SectionName: section}},
	}
	switch {
	case big && g.rnd.Intn(2) == 0:
		p.Overrides = g.block(200, fmt.Sprintf("big%d-", g.n), true)
	case big:
		p.Defaults = g.block(200, fmt.Sprintf("big%d-", g.n), true)
	default:
		switch g.rnd.Intn(4) {
		case 0:
			p.Bare = g.block(1+g.rnd.Intn(3), "", false)
			p.Bare.Strategy, p.Bare.When = policy.StrategyAtomic, ""
		case 1:
			p.Defaults = g.block(1+g.rnd.Intn(3), "", false)
		case 2:
			p.Overrides = g.block(1+g.rnd.Intn(3), "", false)
		default:
			p.Defaults = g.block(1+g.rnd.Intn(3), "", false)
			p.Overrides = g.block(1+g.rnd.Intn(2), "", false)
		}
		if g.rnd.Intn(3) == 0 {
			p.Unset = []string{fmt.Sprintf("r%d", g.rnd.Intn(8))}
		}
	}
	return p
}

func (g *narrowWorld) gatewayPolicy(gw int, big bool) *policy.Policy {
	section := ""
	if g.rnd.Intn(4) == 0 {
		section = "http"
	}
	return g.policy("infra", "Gateway", fmt.Sprintf("gw-%d", gw), section, big)
}

func (g *narrowWorld) routePolicy(r int) *policy.Policy {
	section := ""
	if g.rnd.Intn(3) == 0 {
		section = "main"
	}
	return g.policy(gen.RouteNamespace(r), "HTTPRoute", fmt.Sprintf("route-%d", r), section, false)
}

// TestNarrowProjectionsMatchWholeFolds: on generated worlds with big policies on the Gateways, the
// warnings (and the paths they name) of Gateway-level creates beside them, of updates and deletes of
// any policy, and of route-level creates are the same whether the route paths are compared on the
// rules the write may change (effective.Snapshot.ChangePath) or on whole folds; so are the
// fallbacks of the deletes.
func TestNarrowProjectionsMatchWholeFolds(t *testing.T) {
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { narrowFolds = true }()
	narrowed, warned, fell := 0, 0, 0
	for seed := int64(1); seed <= 12; seed++ {
		g := &narrowWorld{rnd: rand.New(rand.NewSource(seed))}
		w := gen.Generate(gen.Size{Gateways: 3, Routes: 12})
		g.kind = w.Kind
		ps := g.policies()
		snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), ps, ev)
		for _, wr := range g.writes(ps) {
			at := fmt.Sprintf("seed %d, write of %s (deleted: %t)", seed, wr.ref, wr.written == nil)
			lines := sameNarrowAndWhole(t, at, snap, wr)
			if old, ok := snap.Policy(wr.ref); ok && wr.written == nil {
				narrowFolds = true
				got := fallbacks(snap, old)
				narrowFolds = false
				if diff := cmp.Diff(fallbacks(snap, old), got); diff != "" {
					t.Fatalf("%s: fallbacks (-whole +narrow):\n%s", at, diff)
				}
				if len(got) > 0 {
					fell++
				}
			}
			n := narrowRoutePaths(snap, wr)
			narrowed += n
			if len(lines) > 0 {
				warned += n
			}
		}
	}
	if narrowed < 300 || warned < 100 || fell < 20 {
		t.Fatalf("route paths compared on narrow folds: %d, %d of them in writes with warnings; deletes with fallbacks: %d: too few to test it", narrowed, warned, fell)
	}
	t.Logf("route paths compared on narrow folds: %d, %d of them in writes with warnings; deletes with fallbacks: %d", narrowed, warned, fell)
}

// narrowWrite is a write of TestNarrowProjectionsMatchWholeFolds: the policy written (nil: ref
// deleted).
type narrowWrite struct {
	ref     policy.Ref
	written *policy.Policy
}

// policies are a world's policies: maybe one on the GatewayClass, a big one on each Gateway with
// up to two others, and up to one on each route.
func (g *narrowWorld) policies() []*policy.Policy {
	var ps []*policy.Policy
	if g.rnd.Intn(2) == 0 {
		ps = append(ps, g.policy("", "GatewayClass", "example", "", false))
	}
	for gw := 0; gw < 3; gw++ {
		ps = append(ps, g.gatewayPolicy(gw, true))
		for j := g.rnd.Intn(3); j > 0; j-- {
			ps = append(ps, g.gatewayPolicy(gw, false))
		}
	}
	for r := 0; r < 12; r++ {
		for j := g.rnd.Intn(2); j > 0; j-- {
			ps = append(ps, g.routePolicy(r))
		}
	}
	return ps
}

// writes are six Gateway-level and three route-level creates, and an update and a delete of each
// policy of ps.
func (g *narrowWorld) writes(ps []*policy.Policy) []narrowWrite {
	var writes []narrowWrite
	for j := 0; j < 6; j++ {
		p := g.gatewayPolicy(g.rnd.Intn(3), false)
		writes = append(writes, narrowWrite{p.Ref, p})
	}
	for j := 0; j < 3; j++ {
		p := g.routePolicy(g.rnd.Intn(12))
		writes = append(writes, narrowWrite{p.Ref, p})
	}
	for _, old := range ps {
		again := g.policy(old.Ref.Namespace, old.Targets[0].Kind, old.Targets[0].Name, old.Targets[0].SectionName, false)
		again.Ref, again.Created = old.Ref, old.Created
		writes = append(writes, narrowWrite{old.Ref, again}, narrowWrite{old.Ref, nil})
	}
	return writes
}

// sameNarrowAndWhole projects wr on snap with narrow folds and with whole ones, fails unless the
// warnings and their paths are the same, and returns the warnings.
func sameNarrowAndWhole(t *testing.T, at string, snap *effective.Snapshot, wr narrowWrite) []string {
	t.Helper()
	narrowFolds = true
	lines, affected := project(snap, wr.ref, wr.written, true, true)
	narrowFolds = false
	wantLines, wantAffected := project(snap, wr.ref, wr.written, true, true)
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Fatalf("%s: warnings (-whole +narrow):\n%s", at, diff)
	}
	if diff := cmp.Diff(wantAffected, affected); diff != "" {
		t.Fatalf("%s: paths (-whole +narrow):\n%s", at, diff)
	}
	return lines
}

// narrowRoutePaths counts the route paths of wr's write on snap that ChangePath answers for.
func narrowRoutePaths(snap *effective.Snapshot, wr narrowWrite) int {
	after := snap.Without(wr.ref)
	var paths []int
	if old, ok := snap.Policy(wr.ref); ok {
		paths = snap.PathsOf(old)
	}
	if wr.written != nil {
		after = snap.With(wr.written)
		paths = after.Graph.Union(paths, after.PathsOf(wr.written))
	}
	n := 0
	for _, i := range paths {
		if _, _, ok := after.ChangePath(snap, i); ok && after.Graph.Paths[i].RouteKind != "" {
			n++
		}
	}
	return n
}
