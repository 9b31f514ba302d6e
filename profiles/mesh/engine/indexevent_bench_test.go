package engine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// eventSizes are the mesh sizes of the event benchmarks, in Dataplanes.
var eventSizes = []int{1000, 5000, 20000}

// eventMesh is the world of state's BenchmarkDataplaneEvent at n Dataplanes: 200 MeshTimeouts (p-i
// on service svc-i, one to element for the Mesh) and Dataplanes dp-i of service svc-(i%200), each
// with 10 outbounds.
func eventMesh(n int) ([]Policy, []Dataplane) {
	ps := make([]Policy, 0, 200)
	for i := 0; i < 200; i++ {
		ps = append(ps, eventPolicy(i, i, "1s"))
	}
	dps := make([]Dataplane, n)
	for i := range dps {
		dps[i] = eventDataplane(i, 0)
	}
	return ps, dps
}

// eventPolicy is MeshTimeout p-i on service svc-target, setting connectTimeout.
func eventPolicy(i, target int, timeout string) Policy {
	return Policy{Group: PrecedentGroup, Kind: KindMeshTimeout, Namespace: "kuma-system", Name: fmt.Sprintf("p-%03d", i),
		TargetRef: TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%d", target)},
		To:        []Element{NewElement(TargetRef{Kind: Mesh}, map[string]interface{}{"connectTimeout": timeout})}}
}

// eventDataplane is Dataplane dp-i of service svc-(i%200) with 10 outbounds from svc-shift on.
func eventDataplane(i, shift int) Dataplane {
	dp := Dataplane{Namespace: "kuma-demo", Name: fmt.Sprintf("dp-%d", i),
		Inbound: []map[string]string{{ServiceTag: fmt.Sprintf("svc-%d", i%200)}}}
	for o := 0; o < 10; o++ {
		dp.Outbound = append(dp.Outbound, map[string]string{ServiceTag: fmt.Sprintf("svc-%d", (o+shift)%200)})
	}
	return dp
}

// BenchmarkIndexDataplaneEvent is one Dataplane event applied to the index: dp-7's outbounds change
// (its class's outbound services change, so the class's outcomes are recomputed).
func BenchmarkIndexDataplaneEvent(b *testing.B) {
	for _, n := range eventSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps := eventMesh(n)
			x := NewIndex(KindMeshTimeout, ps, dps)
			versions := [2]Dataplane{eventDataplane(7, 1), eventDataplane(7, 2)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x = x.WithDataplane("kuma-demo/dp-7", &versions[i%2])
			}
		})
	}
}

// BenchmarkIndexDataplaneMove is one Dataplane event that moves dp-7 to another service, so to
// another class: it leaves one and joins another.
func BenchmarkIndexDataplaneMove(b *testing.B) {
	for _, n := range eventSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps := eventMesh(n)
			x := NewIndex(KindMeshTimeout, ps, dps)
			versions := [2]Dataplane{eventDataplane(7, 0), eventDataplane(8, 0)}
			versions[1].Name = "dp-7"
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x = x.WithDataplane("kuma-demo/dp-7", &versions[1-i%2])
			}
		})
	}
}

// BenchmarkIndexDataplaneEventAndWrite is what a policy write's review pays after a Dataplane
// event: the event applied, then the review of an update of p-001 through the new index.
func BenchmarkIndexDataplaneEventAndWrite(b *testing.B) {
	for _, n := range eventSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps := eventMesh(n)
			x := NewIndex(KindMeshTimeout, ps, dps)
			versions := [2]Dataplane{eventDataplane(7, 1), eventDataplane(7, 2)}
			w := eventPolicy(1, 1, "2s")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x = x.WithDataplane("kuma-demo/dp-7", &versions[i%2])
				_ = x.WriteWarnings(w, false)
			}
		})
	}
}

// BenchmarkIndexPolicyEvent is one policy event: p-007's configuration changes, its targetRef
// stays (the classes holding it move whole).
func BenchmarkIndexPolicyEvent(b *testing.B) {
	for _, n := range eventSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps := eventMesh(n)
			x := NewIndex(KindMeshTimeout, ps, dps)
			versions := [2]Policy{eventPolicy(7, 7, "2s"), eventPolicy(7, 7, "3s")}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x = x.WithPolicy("kuma-system/p-007", &versions[i%2])
			}
		})
	}
}

// BenchmarkIndexPolicyRetarget is one policy event that changes p-007's targetRef (svc-7 to svc-8
// and back): it visits the Dataplanes the new version selects (n/200 here), so it grows with them.
func BenchmarkIndexPolicyRetarget(b *testing.B) {
	for _, n := range eventSizes {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps := eventMesh(n)
			x := NewIndex(KindMeshTimeout, ps, dps)
			versions := [2]Policy{eventPolicy(7, 8, "1s"), eventPolicy(7, 7, "1s")}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x = x.WithPolicy("kuma-system/p-007", &versions[i%2])
			}
		})
	}
}

// TestEventMesh checks the event benchmarks' world: after the events they apply, the index
// answers a write's review as a fresh one, and as the plain analysis (at a size it can afford).
func TestEventMesh(t *testing.T) {
	ps, dps := eventMesh(400)
	x := NewIndex(KindMeshTimeout, ps, dps)
	moved := eventDataplane(8, 1)
	moved.Name = "dp-7"
	x = x.WithDataplane("kuma-demo/dp-7", &moved)
	dps[7] = moved
	p := eventPolicy(7, 8, "2s")
	x = x.WithPolicy(p.ID(), &p)
	ps[7] = p
	for _, w := range []Policy{eventPolicy(1, 1, "2s"), eventPolicy(8, 8, "5s"), eventPolicy(300, 8, "1s")} {
		want := WriteWarnings(w, ps, dps, false)
		if len(want) == 0 && w.Name == "p-300" {
			t.Errorf("write of %s: no warning: the comparison says little", w.Name)
		}
		if diff := cmp.Diff(want, x.WriteWarnings(w, false)); diff != "" {
			t.Errorf("write of %s: updated index differs from WriteWarnings (-want +got):\n%s", w.Name, diff)
		}
		if diff := cmp.Diff(NewIndex(KindMeshTimeout, ps, dps).WriteWarnings(w, false), x.WriteWarnings(w, false)); diff != "" {
			t.Errorf("write of %s: updated index differs from a fresh one (-fresh +updated):\n%s", w.Name, diff)
		}
	}
}
