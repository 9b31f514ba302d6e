package envoygateway

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/precedent-dev/precedent/test/gen"
)

// BenchmarkBuildWorld is the world a replica builds before it reports ready (Prepare), over the
// scale benchmark's worlds (webhook's BenchmarkScaleProfiles): 1x is gen's 1,000 Gateways, 10,000
// HTTPRoutes and 5,000 policies, each an Envoy Gateway SecurityPolicy and BackendTrafficPolicy; 10x
// ten times that. The build should cost about ten times as much at 10x: what grows faster is cache
// misses on the indexes, which is what this benchmark isolates from the informers and the topology.
func BenchmarkBuildWorld(b *testing.B) {
	for _, scale := range []int{1, 10} {
		b.Run(fmt.Sprintf("%dx", scale), func(b *testing.B) {
			st, _, r, _ := benchWorld(b, gen.Size{Gateways: 1000 * scale, Routes: 10000 * scale, Policies: 5000 * scale})
			kinds, gks, controllers := worldKinds(r.Registry)
			b.ReportAllocs()
			b.ResetTimer()
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC() // each build starts over the state alone, as a replica's does
				b.StartTimer()
				c0 := cpuTime()
				if w := buildWorld(st, gks, kinds, controllers); w.snap == nil {
					b.Fatal("no snapshot")
				}
				cpu += cpuTime() - c0
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used, the garbage collector's workers'
// included: steadier than wall time on a busy machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
