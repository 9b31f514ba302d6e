package effective_test

import (
	"fmt"
	"testing"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/validate"
)

func snapshotFor(b *testing.B, w gen.World) *effective.Snapshot {
	b.Helper()
	ev, err := cel.New(0)
	if err != nil {
		b.Fatal(err)
	}
	return effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev)
}

// BenchmarkFoldTenPolicies folds one path reached by 10 policies (two per level).
func BenchmarkFoldTenPolicies(b *testing.B) {
	k := policy.Builtin()[1]
	var levels []effective.Level
	for l := 0; l < 5; l++ {
		var ps []*policy.Policy
		for j := 0; j < 2; j++ {
			p := gen.GatewayPolicy(k, l*2+j, 0)
			if l%2 == 0 {
				p = gen.RoutePolicy(k, l*2+j, 0)
			}
			ps = append(ps, p)
		}
		levels = append(levels, effective.Level{Policies: ps})
	}
	ev, _ := cel.New(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		effective.Fold(k, levels, ev)
	}
}

var sizes = []gen.Size{
	{Gateways: 100, Routes: 1000, Policies: 500},
	{Gateways: 1000, Routes: 10000, Policies: 5000},
}

// BenchmarkProjectWrite projects one Gateway-level and one route-level policy write (stateful checks
// and warnings included) at two cluster sizes, 10x apart: the cost should stay flat. The kuadrant
// cases project the same writes of Kuadrant's own RateLimitPolicy (profile kuadrant) in the same
// world.
func BenchmarkProjectWrite(b *testing.B) {
	for _, sz := range sizes {
		same := func(p *policy.Policy) *policy.Policy { return p }
		benchProjectWrite(b, "", gen.Generate(sz), sz, same)
		benchProjectWrite(b, "kuadrant-", gen.Kuadrant(gen.Generate(sz)), sz, gen.KuadrantPolicy)
	}
}

func benchProjectWrite(b *testing.B, prefix string, w gen.World, sz gen.Size, as func(*policy.Policy) *policy.Policy) {
	{
		snap := snapshotFor(b, w)
		k := w.Kind
		// Updates of gw-policy-0 and route-policy-0 that change a limit (an unchanged re-apply takes
		// the shortcut measured by the unchanged case).
		changed := func(p *policy.Policy) *policy.Policy {
			b := *p.DefaultsBlock()
			b.Rules = map[string]interface{}{}
			for id, body := range p.DefaultsBlock().Rules {
				b.Rules[id] = body
			}
			b.Rules["per-user"] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(7), "window": "1m"}}}
			if p.Bare != nil {
				p.Bare = &b
			} else {
				p.Defaults = &b
			}
			return p
		}
		for _, c := range []struct {
			name string
			p    *policy.Policy
		}{
			{"gateway", changed(as(gen.GatewayPolicy(k, 0, 0)))},
			{"route", changed(as(gen.RoutePolicy(k, 0, 0)))},
			{"gateway-unchanged", as(gen.GatewayPolicy(k, 0, 0))},
		} {
			b.Run(fmt.Sprintf("%s%s/routes=%d", prefix, c.name, sz.Routes), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					validate.Stateful(snap, c.p, defaultSettings)
					validate.Project(snap, c.p.Ref, c.p)
				}
			})
		}
	}
}

// BenchmarkEverything builds the topology and snapshot of 1,000 Gateways, 10,000 HTTPRoutes and
// 5,000 policies and computes every effective policy.
func BenchmarkEverything(b *testing.B) {
	w := gen.Generate(sizes[1])
	ev, _ := cel.New(0)
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		snap := effective.NewSnapshot(w.Kind, topology.Build(w.Input), w.Policies, ev)
		n = len(snap.Items(snap.Reached(nil)))
	}
	b.ReportMetric(float64(n), "items")
}
