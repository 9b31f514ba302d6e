package mesh

import (
	"fmt"
	"testing"
)

// BenchmarkMergeProxy merges every outbound of one proxy: 200 MeshTimeouts at all levels (5 of
// every 6 select the proxy, 3 elements each) and 20 outbounds. One op = order once + 20 merges.
func BenchmarkMergeProxy(b *testing.B) {
	policies, dp := generate(200, 20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		entries := Entries(Order(KindMeshTimeout, policies, &dp), To)
		for _, o := range dp.Outbound {
			_ = MergeEntries(entries, Selector{Service: o[ServiceTag], Tags: o})
		}
	}
}

// BenchmarkMergeOutbound is one call of Merge (order, concatenate, merge) for one outbound of the
// same proxy.
func BenchmarkMergeOutbound(b *testing.B) {
	policies, dp := generate(200, 20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = Merge(KindMeshTimeout, policies, dp, To, Selector{Service: "svc-07"})
	}
}

// BenchmarkShadowed is the warning analysis on the same mesh (one proxy, 20 outbounds), the work
// of Shadowed per admission of a policy write is twice this (before and after the write).
func BenchmarkShadowed(b *testing.B) {
	policies, dp := generate(200, 20)
	dps := []Dataplane{dp}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = Shadowed(policies, dps)
	}
}

// TestGeneratedMesh checks the benchmark's input is valid and the merge sees every level.
func TestGeneratedMesh(t *testing.T) {
	policies, dp := generate(200, 20)
	if got := len(Order(KindMeshTimeout, policies, &dp)); got != 167 {
		t.Errorf("policies selecting the proxy = %d, want 167", got)
	}
	res := Merge(KindMeshTimeout, policies, dp, To, Selector{Service: "svc-07"})
	// The Proxy level wins; its latest name is timeouts-196 (196 % 6 == 4), whose Mesh element sets
	// all but requestTimeout. No Proxy-level policy targets svc-07 (i % 6 == 4 and i % 20 == 7 cannot
	// both hold); at the ServiceSubset level (i % 6 == 3) the latest with i % 20 == 7 is 147.
	want := map[string]string{
		"connectTimeout":         "timeouts-196",
		"http.requestTimeout":    "timeouts-147",
		"http.idleTimeout":       "timeouts-196",
		"http.streamIdleTimeout": "timeouts-196",
	}
	for k, v := range want {
		if res.Origins[k] != v {
			t.Errorf("origins[%s] = %q, want %q (all: %v)", k, res.Origins[k], v, res.Origins)
		}
	}
}

// webhookMesh is the world of the webhook's BenchmarkMeshWrite at a given fleet size: 200
// Service-level MeshTimeouts (policy i on svc-(i%proxies), a to element for svc-((i+1)%20) and one
// for the Mesh) and proxies Dataplanes svc-i, each with 20 outbounds; and the write it reviews.
func webhookMesh(tb testing.TB, proxies int) ([]Policy, []Dataplane, Policy) {
	const policies, outbounds = 200, 20
	ps := make([]Policy, 0, policies)
	for i := 0; i < policies; i++ {
		p := Policy{Kind: KindMeshTimeout, Namespace: "kuma-system", Name: fmt.Sprintf("p-%03d", i),
			TargetRef: TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%d", i%proxies)}}
		p.To = []Element{
			NewElement(TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%d", (i+1)%outbounds)}, map[string]interface{}{"connectTimeout": "1s"}),
			NewElement(TargetRef{Kind: Mesh}, map[string]interface{}{"http": map[string]interface{}{"requestTimeout": "5s"}}),
		}
		ps = append(ps, p)
	}
	dps := make([]Dataplane, proxies)
	for i := range dps {
		dps[i] = Dataplane{Namespace: "kuma-demo", Name: fmt.Sprintf("dp-%d", i), Inbound: []map[string]string{{ServiceTag: fmt.Sprintf("svc-%d", i)}}}
		for o := 0; o < outbounds; o++ {
			dps[i].Outbound = append(dps[i].Outbound, map[string]string{ServiceTag: fmt.Sprintf("svc-%d", o)})
		}
	}
	w := policy(tb, "kind: MeshTimeout\nmetadata: {name: written, namespace: kuma-system}\nspec:\n  targetRef: {kind: Service, name: svc-1}\n  to:\n  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n")
	return ps, dps, w
}

var fleetSizes = []int{50, 500, 5000}

// BenchmarkIndexWrite is the review of a MeshTimeout write through an Index (what the webhook pays
// per admission once its builder has the index), at 50, 500 and 5,000 Dataplanes.
func BenchmarkIndexWrite(b *testing.B) {
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps, w := webhookMesh(b, n)
			x := NewIndex(KindMeshTimeout, ps, dps)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = x.WriteWarnings(w, false)
			}
		})
	}
}

// BenchmarkIndexBuild is the off-path cost of building the Index.
func BenchmarkIndexBuild(b *testing.B) {
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps, _ := webhookMesh(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = NewIndex(KindMeshTimeout, ps, dps)
			}
		})
	}
}

// BenchmarkWriteWarnings is the same review without an index (whole-mesh Shadowed before and
// after), for comparison.
func BenchmarkWriteWarnings(b *testing.B) {
	for _, n := range fleetSizes[:2] {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps, w := webhookMesh(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = WriteWarnings(w, ps, dps, false)
			}
		})
	}
}
