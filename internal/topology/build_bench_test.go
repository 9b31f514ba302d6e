package topology_test

import (
	"fmt"
	"testing"

	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// BenchmarkBuild builds the graph of the benchmark world (test/gen) at 1x (1,000 Gateways, 10,000
// HTTPRoutes) and 10x: a replica's first build. Its ns/op at 10x over 1x is the build's share of the
// ready ratio `make bench-scale` reports.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{1, 10} {
		w := gen.Generate(gen.Size{Gateways: 1000 * n, Routes: 10000 * n})
		in := w.Input
		b.Run(fmt.Sprintf("%dx", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				topology.Build(in)
			}
		})
	}
}
