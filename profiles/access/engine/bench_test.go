package engine

import (
	"fmt"
	"testing"
)

// BenchmarkEvaluate: one request through a Gateway and a Backend with 50 policies each, allowed.
// anyAllow: the tool is allowed only by the newest policy of each level, so every policy whose source
// matches (10 a level) is consulted. allAllow: every policy must allow, so all 100 are consulted.
func BenchmarkEvaluate(b *testing.B) {
	gw, _, _ := generate(50, 0)
	var be []Policy
	for i := 0; i < 50; i++ {
		be = append(be, policy(fmt.Sprintf("team/be-policy-%03d", i), at(i), beRef("mcp"),
			inline("agents", sa(fmt.Sprintf("agents-%d/agent", i%5)), "search", fmt.Sprintf("tool-%d", i)),
			inline("admins", sa("ops/admin"), "delete"),
		))
	}
	for _, bc := range []struct {
		combine string
		req     Request
	}{
		{AnyAllow, Request{Source: sa("agents-4/agent"), Tool: "tool-49"}},
		{AllAllow, Request{Source: sa("ops/admin"), Tool: "delete"}},
	} {
		s := withCombine(bc.combine)
		if d := Evaluate(bc.req, gw, be, s); d.Decision != Allow {
			b.Fatalf("%s: %+v", bc.combine, d)
		}
		b.Run(bc.combine, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Evaluate(bc.req, gw, be, s)
			}
		})
	}
}

// BenchmarkProjectGatewayWrite: a Gateway-level write with 1,000 Backends (and their policies)
// behind the Gateway, which already has 5 policies.
func BenchmarkProjectGatewayWrite(b *testing.B) {
	gw, be, topo := generate(5, 1000)
	others := append(gw, be...)
	written := policy("gw/lockdown", at(5000), gwRef("edge"), inline("agents", sa("agents-0/agent"), "search"))
	s := DefaultSettings()
	b.ReportAllocs()
	for b.Loop() {
		ProjectWrite(written, others, &topo, s, 0)
	}
}

// BenchmarkProjectGatewayWriteScale: the same Gateway-level write with 1,000 and 10,000 Backends
// behind the Gateway (the target: the larger at most twice the cost of the smaller), with
// the warning limit the webhook applies, projected as the webhook does: against the Grants built
// once per generation of the policies and topology (their build is BenchmarkNewGrants), and by the
// reference ProjectWrite.
func BenchmarkProjectGatewayWriteScale(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		gw, be, topo := generate(5, n)
		others := append(gw, be...)
		written := policy("gw/lockdown", at(5000), gwRef("edge"), inline("agents", sa("agents-0/agent"), "search"))
		s := DefaultSettings()
		g := NewGrants(others, &topo, s)
		b.Run(fmt.Sprintf("backends=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.ProjectWrite(written, 20)
			}
		})
		b.Run(fmt.Sprintf("reference/backends=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ProjectWrite(written, others, &topo, s, 20)
			}
		})
	}
}

// BenchmarkNewGrants: building the Grants of 10,000 Backends with a policy each (off the request path).
func BenchmarkNewGrants(b *testing.B) {
	gw, be, topo := generate(5, 10000)
	others := append(gw, be...)
	s := DefaultSettings()
	b.ReportAllocs()
	for b.Loop() {
		NewGrants(others, &topo, s)
	}
}
