package mesh_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/state"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
	"github.com/precedent-dev/precedent/test/gen"
)

// BenchmarkAdmissionAfterServiceEvent: the admission of a MeshTimeout write (its mesh's index read
// and its warnings computed; ns/op) right after one event that changes what a to item naming
// MeshServices by labels selects, at BenchmarkDataplaneEvent's scale: 200 kuma.io MeshTimeouts of the
// whole mesh, 20 of them naming MeshServices by labels, 200 MeshServices, and 1,000 and 5,000
// Dataplanes (their labels' apps unused: each sees every policy). The event is a MeshService
// relabelled in and out of the team the 20 policies name (event=meshservice), or one of those
// policies changed (event=labelpolicy); event=none is the admission alone, what a steady write
// costs. The index follows both events while they are applied (meshIndex.next), so the admission
// after one builds nothing; what the event costs is event-ns/op.
func BenchmarkAdmissionAfterServiceEvent(b *testing.B) {
	kind := schema.GroupKind{Group: mesh.KumaGroup, Kind: mesh.KindMeshTimeout}
	probe, errs := mesh.Parse(benchMeshWideTimeout())
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	if ws := probeWarnings(b, kind, probe); len(ws) == 0 {
		b.Fatal("the probe write has no warnings: the benchmark would measure nothing of the merge")
	}
	for _, event := range []string{"none", "meshservice", "labelpolicy"} {
		for _, n := range []int{1000, 5000} {
			b.Run(fmt.Sprintf("event=%s/dataplanes=%d", event, n), func(b *testing.B) {
				s := state.New(logr.Discard())
				for i := 0; i < 200; i++ {
					s.Apply(benchKumaTimeout(i, 0), gen.MeshService(i, 0))
				}
				for i := 0; i < n; i++ {
					dp := gen.Dataplane(i, 200, 0)
					dp.SetLabels(map[string]string{"app": fmt.Sprintf("svc-%d", i%200)})
					s.Apply(dp)
				}
				if x := meshprofile.Index(s, kind, "default", mesh.Kuma30); x == nil {
					b.Fatal("no index")
				}
				b.ReportAllocs()
				b.ResetTimer()
				var applying time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					start := time.Now()
					switch event {
					case "meshservice":
						s.Apply(gen.MeshService(7, 6+i%2)) // team-3, which 20 policies name, and team-4
					case "labelpolicy":
						s.Apply(benchKumaTimeout(3, 1+i%2))
					}
					applying += time.Since(start)
					b.StartTimer()
					meshprofile.Index(s, kind, "default", mesh.Kuma30).WriteWarnings(probe, false)
				}
				b.ReportMetric(float64(applying.Nanoseconds())/float64(b.N), "event-ns/op")
			})
		}
	}
}

// benchKumaTimeout is kuma.io MeshTimeout p-i on the Dataplanes of svc-(i%200): one in ten (i%10 ==
// 3) names the MeshServices of team-(i+shift)%10 by labels, the others one MeshService by name.
func benchKumaTimeout(i, shift int) *unstructured.Unstructured {
	to := map[string]interface{}{"kind": "MeshService", "name": fmt.Sprintf("svc-%d", (i+1)%200)}
	if i%10 == 3 {
		to = map[string]interface{}{"kind": "MeshService", "labels": map[string]interface{}{"team": fmt.Sprintf("team-%d", (i+shift)%10)}}
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "kuma.io/v1alpha1", "kind": mesh.KindMeshTimeout,
		"metadata": map[string]interface{}{"name": fmt.Sprintf("p-%03d", i), "namespace": "kuma-demo"},
		"spec": map[string]interface{}{
			"targetRef": map[string]interface{}{"kind": "Mesh"},
			"to": []interface{}{map[string]interface{}{"targetRef": to,
				"default": map[string]interface{}{"connectionTimeout": fmt.Sprintf("%ds", 1+i%3)}}}},
	}}
}

// probeWarnings are the warnings of the probe write over a small mesh of the benchmark's shape.
func probeWarnings(b *testing.B, kind schema.GroupKind, probe mesh.Policy) []string {
	s := state.New(logr.Discard())
	for i := 0; i < 200; i++ {
		s.Apply(benchKumaTimeout(i, 0), gen.MeshService(i, 0))
		dp := gen.Dataplane(i, 200, 0)
		dp.SetLabels(map[string]string{"app": fmt.Sprintf("svc-%d", i%200)})
		s.Apply(dp)
	}
	return meshprofile.Index(s, kind, "default", mesh.Kuma30).WriteWarnings(probe, false)
}

// benchMeshWideTimeout is a kuma.io MeshTimeout for every outbound of the mesh, which the
// MeshTimeouts of the services shadow.
func benchMeshWideTimeout() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "kuma.io/v1alpha1", "kind": mesh.KindMeshTimeout,
		"metadata": map[string]interface{}{"name": "everything", "namespace": "kuma-demo"},
		"spec": map[string]interface{}{"to": []interface{}{map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Mesh"},
			"default": map[string]interface{}{"connectionTimeout": "9s"}}}},
	}}
}
