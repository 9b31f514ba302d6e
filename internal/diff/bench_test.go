package diff_test

import (
	"testing"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

var benchSize = gen.Size{Gateways: 1000, Routes: 10000, Policies: 5000}

// headWorld is a second, separately generated world of the same size whose policies differ from the
// generated ones in n: the first n/2 Gateway-level and the first n/2 route-level policies each get a
// changed per-user limit.
func headWorld(n int) gen.World {
	w := gen.Generate(benchSize)
	gw, route := 0, 0
	for i, p := range w.Policies {
		q := *p
		switch {
		case p.Targets[0].Kind == "Gateway" && gw < n/2:
			gw++
			d := *p.Defaults
			d.Rules = withLimit(d.Rules, 77)
			q.Defaults = &d
		case p.Targets[0].Kind == "HTTPRoute" && route < n-n/2:
			route++
			b := *p.Bare
			b.Rules = withLimit(b.Rules, 7)
			q.Bare = &b
		default:
			continue
		}
		w.Policies[i] = &q
	}
	return w
}

func withLimit(rules map[string]interface{}, limit int64) map[string]interface{} {
	out := make(map[string]interface{}, len(rules))
	for id, body := range rules {
		out[id] = body
	}
	out["per-user"] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": limit, "window": "1m"}}}
	return out
}

// BenchmarkDiff compares two trees of 1,000 Gateways, 10,000 HTTPRoutes and 5,000 RateLimitPolicies
// that differ in 50 policies, half of them Gateway-level: the topologies are compared, one graph is
// built and shared, both snapshots are indexed and only the paths the 50 policies reach are folded.
// Compare with BenchmarkEffective, one `effective` run over the same tree.
func BenchmarkDiff(b *testing.B) {
	base, head := gen.Generate(benchSize), headWorld(50)
	ev, _ := cel.New(0)
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		g := topology.Build(base.Input)
		hg := g
		if !diff.SameTopology(base.Input, head.Input) {
			hg = topology.Build(head.Input)
		}
		n = len(diff.Effective(effective.NewSnapshot(base.Kind, g, base.Policies, ev), effective.NewSnapshot(head.Kind, hg, head.Policies, ev)))
	}
	b.ReportMetric(float64(n), "changes")
}

// BenchmarkEffective is one `precedent effective` run over the base tree of BenchmarkDiff: build the
// graph and the snapshot, fold every path that policies reach.
func BenchmarkEffective(b *testing.B) {
	w := gen.Generate(benchSize)
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
