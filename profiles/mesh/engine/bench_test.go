package engine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	return webhookMeshSpread(tb, proxies, proxies)
}

// webhookMeshSpread is webhookMesh with the 200 policies on the first spread services only
// (policy i on svc-(i%spread)), so the written proxy's policies do not thin out as the fleet grows.
func webhookMeshSpread(tb testing.TB, proxies, spread int) ([]Policy, []Dataplane, Policy) {
	const policies, outbounds = 200, 20
	ps := make([]Policy, 0, policies)
	for i := 0; i < policies; i++ {
		p := Policy{Kind: KindMeshTimeout, Namespace: "kuma-system", Name: fmt.Sprintf("p-%03d", i),
			TargetRef: TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%d", i%spread)}}
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

// BenchmarkIndexWriteSameProxy is BenchmarkIndexWrite with the written proxy's share of the
// policies held (200 policies on the first 50 services at every fleet size): in BenchmarkIndexWrite
// the written svc-1 carries 4 policies at 50 Dataplanes and 1 at 5,000, so the small fleet costs
// more; here only the fleet grows, which is what "flat" is about.
func BenchmarkIndexWriteSameProxy(b *testing.B) {
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps, w := webhookMeshSpread(b, n, fleetSizes[0])
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

// rulesMesh is the world of BenchmarkIndexWriteRules at a given fleet size, in Kuma's rules shape:
// a mesh-wide kuma.io policy of kuma-system (a deny for one namespace and an allow for the trust
// domain; for MeshTimeout, the mesh's inbound timeouts), 200 MeshService-level ones (policy i on
// svc-(i%proxies): for MeshTrafficPermission a deny and an allow of SPIFFE ID prefixes and an
// allowWithShadowDeny; for MeshTimeout a catch-all rule and one matched on a SPIFFE ID), and
// proxies Dataplanes svc-i; and the write it reviews, one more MeshService-level policy.
func rulesMesh(tb testing.TB, kind string, proxies int) ([]Policy, []Dataplane, Policy) {
	const policies = 200
	rule := func(i int) string {
		if kind == KindMeshTrafficPermission {
			return sprintf(`{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/blocked-%d"}}], allow: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/app-%d"}}], allowWithShadowDeny: [{spiffeID: {type: Exact, value: "spiffe://td/ns/legacy/sa/s-%d"}}]}}`, i, i, i)
		}
		return sprintf(`{default: {idleTimeout: %ds, http: {requestTimeout: %ds}}}, {matches: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/batch-%d"}}], default: {http: {requestTimeout: 5m}}}`, i+1, i+1, i)
	}
	mesh := `{rules: [{default: {deny: [{spiffeID: {type: Prefix, value: "spiffe://td/ns/malicious"}}], allow: [{spiffeID: {type: Prefix, value: "spiffe://td"}}]}}]}`
	if kind == KindMeshTimeout {
		mesh = `{rules: [{default: {connectionTimeout: 5s, idleTimeout: 1h, http: {requestTimeout: 15s, streamIdleTimeout: 30m}}}]}`
	}
	doc := func(name, spec string) string {
		return "apiVersion: kuma.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: kuma-system}\nspec: " + spec
	}
	ps := []Policy{policy(tb, doc("mesh-wide", mesh))}
	for i := 0; i < policies; i++ {
		ps = append(ps, policy(tb, doc(sprintf("p-%03d", i), sprintf("{targetRef: {kind: MeshService, name: svc-%d}, rules: [%s]}", i%proxies, rule(i)))))
	}
	dps := make([]Dataplane, proxies)
	for i := range dps {
		dps[i] = Dataplane{Namespace: "kuma-demo", Name: fmt.Sprintf("dp-%d", i), Inbound: []map[string]string{{ServiceTag: fmt.Sprintf("svc-%d", i)}}}
	}
	w := policy(tb, doc("written", sprintf("{targetRef: {kind: MeshService, name: svc-1}, rules: [%s]}", rule(1000))))
	return ps, dps, w
}

// BenchmarkIndexWriteRules is BenchmarkIndexWrite for policies in Kuma's rules shape, both kinds, at
// 50, 500 and 5,000 Dataplanes: the shadowing of the rules and, for MeshTrafficPermission, of the
// allow matches a deny covers.
func BenchmarkIndexWriteRules(b *testing.B) {
	for _, kind := range []string{KindMeshTimeout, KindMeshTrafficPermission} {
		for _, n := range fleetSizes {
			b.Run(fmt.Sprintf("kind=%s/dataplanes=%d", kind, n), func(b *testing.B) {
				ps, dps, w := rulesMesh(b, kind, n)
				x := NewIndex(kind+"."+KumaGroup, ps, dps)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_ = x.WriteWarnings(w, false)
				}
			})
		}
	}
}

// TestRulesMesh checks the benchmark's input: every policy valid and selecting its proxy, and the
// index answering what the plain analysis answers for the write.
func TestRulesMesh(t *testing.T) {
	for _, kind := range []string{KindMeshTimeout, KindMeshTrafficPermission} {
		ps, dps, w := rulesMesh(t, kind, 50)
		if got := len(Order(kind+"."+KumaGroup, ps, &dps[1])); got != 5 {
			t.Errorf("%s: policies selecting dp-1 = %d, want 5 (the mesh-wide one and 4 on svc-1)", kind, got)
		}
		want := WriteWarnings(w, ps, dps, false)
		if diff := cmp.Diff(want, NewIndex(kind+"."+KumaGroup, ps, dps).WriteWarnings(w, false)); diff != "" {
			t.Errorf("%s: Index.WriteWarnings (-plain +index):\n%s", kind, diff)
		}
	}
}

// kumaToMesh is webhookMesh with Kuma's MeshTimeouts (MeshService items and Mesh items), whose to
// items Kuma 3.0 sorts item by item (EntriesAt).
func kumaToMesh(tb testing.TB, proxies int) ([]Policy, []Dataplane, Policy) {
	ps, dps, _ := webhookMesh(tb, proxies)
	for i := range ps {
		p := &ps[i]
		p.Group, p.Role, p.DisplayName = KumaGroup, RoleSystem, p.Name
		p.TargetRef.Kind = MeshService
		p.To = []Element{
			NewElement(TargetRef{Kind: MeshService, Name: p.To[0].TargetRef.Name}, map[string]interface{}{"connectionTimeout": "1s"}),
			NewElement(TargetRef{Kind: Mesh}, map[string]interface{}{"http": map[string]interface{}{"requestTimeout": "5s"}}),
		}
	}
	w := policy(tb, "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: written, namespace: kuma-system}\nspec:\n  targetRef: {kind: MeshService, name: svc-1}\n  to:\n  - {targetRef: {kind: Mesh}, default: {connectionTimeout: 2s}}\n")
	return ps, dps, w
}

// BenchmarkIndexWriteKumaTo is the review of a kuma.io MeshTimeout write with to items through an
// Index, per Kuma version (3.0 sorts the to items per item), at 50, 500 and 5,000 Dataplanes.
func BenchmarkIndexWriteKumaTo(b *testing.B) {
	for _, v := range Versions {
		for _, n := range fleetSizes {
			b.Run(fmt.Sprintf("version=%s/dataplanes=%d", v, n), func(b *testing.B) {
				ps, dps, w := kumaToMesh(b, n)
				x := NewIndexAt(v, KindMeshTimeout+"."+KumaGroup, ps, dps)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_ = x.WriteWarnings(w, false)
				}
			})
		}
	}
}
