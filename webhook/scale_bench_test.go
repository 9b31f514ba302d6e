package webhook_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/test/gen"
)

// scaleWrites is how many admissions of each level BenchmarkScale times per world.
const scaleWrites = 2000

// BenchmarkScale is `make bench-scale`: a replica's readiness and its writes at 1x (1,000 Gateways,
// 10,000 HTTPRoutes, 5,000 RateLimitPolicies) and 10x the benchmark world. Ready is the time from
// the first object its informers deliver (through the State's own event handlers) to the end of its
// first admission, the profiles' caches prepared as a replica prepares them before it reports
// ready (also as CPU time, which a busy machine disturbs less); heap is the live heap after a GC then; p50 and p99 are those of route-level and
// Gateway-level policy creates in steady state. The ratios to 1x are reported on the 10x line.
func BenchmarkScale(b *testing.B) {
	type figures struct {
		ready, readyCPU time.Duration
		heap            uint64
		route, gateway  [2]time.Duration // p50, p99
	}
	var base figures
	for _, scale := range []int{1, 10} {
		b.Run(fmt.Sprintf("%dx", scale), func(b *testing.B) {
			w := gen.Generate(gen.Size{Gateways: 1000 * scale, Routes: 10000 * scale, Policies: 5000 * scale})
			route, gateway := requests(b, w, "route"), requests(b, w, "gateway")
			var f figures
			for i := 0; i < b.N; i++ {
				goruntime.GC()
				t0, c0 := time.Now(), cpuTime()
				v, _ := newValidator(b, w)
				if err := profiles.Prepare(v.State, v.Settings.Current()); err != nil {
					b.Fatal(err)
				}
				if resp := v.Handle(context.Background(), route[0]); !resp.Allowed {
					b.Fatalf("the first write was denied: %v", resp.Result)
				}
				f.ready, f.readyCPU = time.Since(t0), cpuTime()-c0
				goruntime.GC()
				var ms goruntime.MemStats
				goruntime.ReadMemStats(&ms)
				f.heap = ms.HeapAlloc
				f.route = timed(v, route)
				f.gateway = timed(v, gateway)
				goruntime.KeepAlive(v)
			}
			b.ReportMetric(f.ready.Seconds(), "ready-s")
			b.ReportMetric(f.readyCPU.Seconds(), "ready-cpu-s")
			b.ReportMetric(float64(f.heap)/(1<<20), "heap-MiB")
			b.ReportMetric(float64(f.route[0].Microseconds()), "route-p50-us")
			b.ReportMetric(float64(f.route[1].Microseconds()), "route-p99-us")
			b.ReportMetric(float64(f.gateway[0].Microseconds()), "gateway-p50-us")
			b.ReportMetric(float64(f.gateway[1].Microseconds()), "gateway-p99-us")
			if scale == 1 {
				base = f
				return
			}
			if base.ready > 0 {
				b.ReportMetric(f.ready.Seconds()/base.ready.Seconds(), "ready-ratio")
				b.ReportMetric(f.readyCPU.Seconds()/base.readyCPU.Seconds(), "ready-cpu-ratio")
				b.ReportMetric(float64(f.route[0])/float64(base.route[0]), "route-p50-ratio")
				b.ReportMetric(float64(f.gateway[0])/float64(base.gateway[0]), "gateway-p50-ratio")
			}
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used: steadier than wall time on a
// busy machine, and it counts the garbage collector's workers too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed sends scaleWrites of reqs (round robin) and returns the p50 and p99 of their durations.
func timed(v admission.Handler, reqs []admission.Request) [2]time.Duration {
	d := make([]time.Duration, 0, scaleWrites)
	for i := 0; i < scaleWrites; i++ {
		t0 := time.Now()
		v.Handle(context.Background(), reqs[i%len(reqs)])
		d = append(d, time.Since(t0))
	}
	p50, _, p99 := durations(d)
	return [2]time.Duration{p50, p99}
}
