package mesh_test

import (
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/state"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
	"github.com/precedent-dev/precedent/test/gen"
)

// BenchmarkDataplaneEvent: applying one Dataplane change (its outbounds change) and reading the
// MeshTimeout index of its mesh, with 200 MeshTimeouts (one per service) and 1,000 and 5,000
// Dataplanes of 10 outbounds each. The grouped Dataplanes (the path to its key copied) and the
// index (its copy-on-write update, nextIndex) follow the event: the cost should not grow with the
// Dataplanes.
func BenchmarkDataplaneEvent(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			s := state.New(logr.Discard())
			for i := 0; i < 200; i++ {
				s.Apply(&unstructured.Unstructured{Object: map[string]interface{}{
					"apiVersion": "policy.precedent.dev/v1alpha1", "kind": "MeshTimeout",
					"metadata": map[string]interface{}{"name": fmt.Sprintf("p-%03d", i), "namespace": "kuma-system"},
					"spec": map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Service", "name": fmt.Sprintf("svc-%d", i)},
						"to": []interface{}{map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Mesh"}, "connectTimeout": "1s"}}},
				}})
			}
			for i := 0; i < n; i++ {
				s.Apply(gen.Dataplane(i, 200, 0))
			}
			if x := meshprofile.Index(s, meshprofile.MeshTimeoutKind, "default", mesh.Kuma30); x == nil {
				b.Fatal("no index")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.Apply(gen.Dataplane(7, 200, 1+i%2))
				meshprofile.Index(s, meshprofile.MeshTimeoutKind, "default", mesh.Kuma30)
			}
		})
	}
}
