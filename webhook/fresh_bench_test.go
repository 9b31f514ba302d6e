package webhook_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sort"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/test/gen"
)

// freshAdmissions is how many admissions after a start BenchmarkValidateFresh times.
const freshAdmissions = 200

// bigPolicy is a Gateway-level policy with n rules (merge defaults) on Gateway gw of the world.
func bigPolicy(k policy.Kind, n, gw int) *policy.Policy {
	p := gen.GatewayPolicy(k, 100000, gw)
	p.Ref.Name = "big-policy"
	p.Overrides = nil
	rules := make(map[string]interface{}, n)
	for i := 0; i < n; i++ {
		rules[fmt.Sprintf("rule-%d", i)] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(i + 1), "window": "1m"}}}
	}
	p.Defaults = &policy.Block{Strategy: policy.StrategyMerge, Rules: rules}
	return p
}

// underGateway is route-level creates on routes attached to Gateway gw (route i attaches to Gateway
// i mod Gateways), as requests() builds them.
func underGateway(b *testing.B, w gen.World, gw int) []admission.Request {
	var out []admission.Request
	for r := gw; len(out) < 64 && r < len(w.Input.HTTPRoutes); r += len(w.Input.Gateways) {
		p := gen.RoutePolicy(w.Kind, 200000+r, r)
		p.Ref.Name = fmt.Sprintf("bench-%d", len(out))
		out = append(out, request(b, p))
	}
	return out
}

// durations summarizes timings: p50, mean and p99.
func durations(d []time.Duration) (p50, mean, p99 time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return d[len(d)/2], sum / time.Duration(len(d)), d[len(d)*99/100]
}

// BenchmarkValidateFresh times the first 200 admissions of a freshly started replica (the state
// filled by its informers, ready as the readiness check says), against the same admissions in steady
// state, in the full-size world plus one 5,000-rule Gateway-level policy. Writes alternate between
// route-level and Gateway-level ones. Reported: p50, mean and p99 of both, and their ratios.
func BenchmarkValidateFresh(b *testing.B) {
	sz := benchSizes[len(benchSizes)-1]
	w := gen.Generate(sz.size)
	w.Policies = append(w.Policies, bigPolicy(w.Kind, 5000, 0))
	route, gateway := requests(b, w, "route"), requests(b, w, "gateway")
	var reqs []admission.Request
	for i := 0; i < freshAdmissions; i++ {
		if i%2 == 0 {
			reqs = append(reqs, route[i/2%len(route)])
		} else {
			reqs = append(reqs, gateway[i/2%len(gateway)])
		}
	}
	for _, prepared := range []bool{false, true} {
		b.Run(fmt.Sprintf("prepared=%t", prepared), func(b *testing.B) { benchFresh(b, w, reqs, prepared) })
	}
}

// benchFresh is one case of BenchmarkValidateFresh: prepared says whether the replica built its
// snapshots before its first admission (as Register's readiness does) or not (as before).
func benchFresh(b *testing.B, w gen.World, reqs []admission.Request, prepared bool) {
	ctx := context.Background()
	var fresh, steady []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		v, _ := newValidator(b, w)
		if prepared {
			if err := profiles.Prepare(v.State, v.Settings.Current()); err != nil {
				b.Fatalf("preparing: %v", err)
			}
		}
		goruntime.GC()
		b.StartTimer()
		for _, r := range reqs {
			t0 := time.Now()
			v.Handle(ctx, r)
			fresh = append(fresh, time.Since(t0))
		}
		b.StopTimer()
		for _, r := range reqs {
			t0 := time.Now()
			v.Handle(ctx, r)
			steady = append(steady, time.Since(t0))
		}
		b.StartTimer()
	}
	fp50, fmean, fp99 := durations(fresh)
	sp50, smean, sp99 := durations(steady)
	b.ReportMetric(float64(fp50.Nanoseconds()), "fresh-p50-ns")
	b.ReportMetric(float64(fmean.Nanoseconds()), "fresh-mean-ns")
	b.ReportMetric(float64(fp99.Nanoseconds()), "fresh-p99-ns")
	b.ReportMetric(float64(sp50.Nanoseconds()), "steady-p50-ns")
	b.ReportMetric(float64(smean.Nanoseconds()), "steady-mean-ns")
	b.ReportMetric(float64(sp99.Nanoseconds()), "steady-p99-ns")
	b.ReportMetric(float64(fp50)/float64(sp50), "p50-ratio")
	b.ReportMetric(float64(fmean)/float64(smean), "mean-ratio")
}

// BenchmarkValidateUnderBigPolicy is a route-level write under a Gateway that carries a 5,000-rule
// Gateway-level policy, against the same kind of write under a Gateway without one, in steady state.
// A write's cost should not grow with the size of a policy it does not change. A third case has a
// Gateway-level constraint (gen's Gateway policy) beside the big policy.
func BenchmarkValidateUnderBigPolicy(b *testing.B) {
	sz := benchSizes[len(benchSizes)-1]
	w := gen.Generate(sz.size)
	// gen gives Gateway i a policy for i < Policies/10; the last Gateway has none of its own.
	plain := len(w.Input.Gateways) - 1
	big := plain - 1
	w.Policies = append(w.Policies, bigPolicy(w.Kind, 5000, big))
	// Gateway 0 has a policy of its own with a constraint (an override with a when condition).
	constrained := bigPolicy(w.Kind, 5000, 0)
	constrained.Ref.Name = "big-policy-beside-a-constraint"
	w.Policies = append(w.Policies, constrained)
	v, _ := newValidator(b, w)
	for _, c := range []struct {
		name string
		gw   int
	}{{"gateway=plain", plain}, {"gateway=5000-rule-policy", big}, {"gateway=5000-rule-policy-and-constraint", 0}} {
		b.Run(c.name, func(b *testing.B) { timeOps(b, v, underGateway(b, w, c.gw)) })
	}
}
