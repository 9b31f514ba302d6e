package mesh

import (
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
