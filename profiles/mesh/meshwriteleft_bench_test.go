package mesh_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

// The mesh-level writes the heads did not answer after their from shapes (engine/README.md), each
// with the world it meets over test/gen's Dataplanes: Kuma's mesh-wide MeshTrafficPermission,
// answered from the heads since, and two that still cost the recomputation of every class.

// kumaSpec is Kuma's policy of kind name in ns (kuma.io/mesh default) with spec.
func kumaSpec(tb testing.TB, kind, ns, name string, spec map[string]interface{}) mesh.Policy {
	p, errs := mesh.Parse(&unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "kuma.io/v1alpha1", "kind": kind,
		"metadata": map[string]interface{}{"name": name, "namespace": ns, "labels": map[string]interface{}{"kuma.io/mesh": "default"}},
		"spec":     spec,
	}})
	if len(errs) > 0 {
		tb.Fatal(errs.ToAggregate())
	}
	return p
}

// kumaRef is a targetRef on the Mesh (svc "") or on MeshService svc.
func kumaRef(svc string) map[string]interface{} {
	if svc == "" {
		return map[string]interface{}{"kind": "Mesh"}
	}
	return map[string]interface{}{"kind": "MeshService", "name": svc}
}

// kumaPermission is Kuma's MeshTrafficPermission name in kuma-system on the Dataplanes of service
// on (the Mesh when ""), with one from item giving action to the sources of service from (every
// source when "").
func kumaPermission(tb testing.TB, name, on, from, action string) mesh.Policy {
	return kumaSpec(tb, mesh.KindMeshTrafficPermission, "kuma-system", name, map[string]interface{}{
		"targetRef": kumaRef(on),
		"from": []interface{}{map[string]interface{}{"targetRef": kumaRef(from),
			"default": map[string]interface{}{"action": action}}},
	})
}

// kumaPermissionWorld is test/gen's Dataplanes at n with Kuma's MeshTrafficPermissions: one per
// service allowing the previous service, and Kuma's mesh-wide allow-all; and the most common write
// of the kind, another Mesh-level `from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]`.
func kumaPermissionWorld(tb testing.TB, n int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy) {
	_, dps, _ := genMesh(tb, n)
	services := max(n/10, 1)
	var ps []mesh.Policy
	for i := 0; i < services; i++ {
		svc, prev := fmt.Sprintf("svc-%d", i), fmt.Sprintf("svc-%d", (i+services-1)%services)
		ps = append(ps, kumaPermission(tb, svc+"-permission", svc, prev, "Allow"))
	}
	ps = append(ps, kumaPermission(tb, "allow-all", "", "", "Allow"))
	w := kumaPermission(tb, "bench-0", "", "", "Allow")
	return mesh.NewIndex(mesh.KindMeshTrafficPermission+"."+mesh.KumaGroup, ps, dps), ps, dps, w
}

// roleWorld is test/gen's Dataplanes at n with Kuma's MeshTimeouts, one per service and Kuma's
// mesh-wide default, and a write with a namespace role: a consumer MeshTimeout in kuma-demo (the
// Dataplanes' namespace) on the Mesh with a to item on the Mesh, which reaches only the proxies of
// its namespace.
func roleWorld(tb testing.TB, n int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy) {
	_, dps, _ := genMesh(tb, n)
	timeout := func(ns, name, on, conn string) mesh.Policy {
		return kumaSpec(tb, mesh.KindMeshTimeout, ns, name, map[string]interface{}{"targetRef": kumaRef(on), "to": []interface{}{
			map[string]interface{}{"targetRef": kumaRef(""), "default": map[string]interface{}{"connectionTimeout": conn}},
		}})
	}
	var ps []mesh.Policy
	for i := 0; i < max(n/10, 1); i++ {
		svc := fmt.Sprintf("svc-%d", i)
		ps = append(ps, timeout("kuma-system", svc+"-timeouts", svc, "1s"))
	}
	ps = append(ps, timeout("kuma-system", "mesh-timeout-all-default", "", "2s"))
	w := timeout("kuma-demo", "bench-0", "", "5s")
	if w.Role != mesh.RoleConsumer {
		tb.Fatalf("role %q, want %q", w.Role, mesh.RoleConsumer)
	}
	return mesh.NewIndex(mesh.KindMeshTimeout+"."+mesh.KumaGroup, ps, dps), ps, dps, w
}

// fromServiceWorld is fromWorld with a write whose from item is on a service (svc-0) instead of
// the Mesh.
func fromServiceWorld(tb testing.TB, kind string, n int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy) {
	x, ps, dps, _ := fromWorld(tb, kind, n)
	if kind == "timeout" {
		return x, ps, dps, precedentPolicy(tb, mesh.KindMeshTimeout, "bench-0", "", "svc-0", map[string]interface{}{"connectTimeout": "5s"})
	}
	return x, ps, dps, precedentPolicy(tb, mesh.KindMeshTrafficPermission, "bench-0", "", "svc-0", map[string]interface{}{"action": "ALLOW"})
}

// leftWorlds are the worlds of those writes, by name: (a) Kuma's MeshTrafficPermission (from the
// heads), (b) a written policy with a namespace role, (c) a mesh-level from item on a service, for
// both kinds (both left to the classes).
var leftWorlds = []struct {
	name  string
	world func(testing.TB, int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy)
}{
	{"kuma-permission", kumaPermissionWorld},
	{"role", roleWorld},
	{"from-service-timeout", func(tb testing.TB, n int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy) {
		return fromServiceWorld(tb, "timeout", n)
	}},
	{"from-service-permission", func(tb testing.TB, n int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy) {
		return fromServiceWorld(tb, "permission", n)
	}},
}

// BenchmarkIndexWriteMeshLevelLeft is BenchmarkIndexWriteMeshLevel for the writes of leftWorlds.
func BenchmarkIndexWriteMeshLevelLeft(b *testing.B) {
	for _, lw := range leftWorlds {
		for _, n := range []int{5000, 50000} {
			b.Run(fmt.Sprintf("write=%s/dataplanes=%d", lw.name, n), func(b *testing.B) {
				x, _, _, w := lw.world(b, n)
				timeWrite(b, x, w)
			})
		}
	}
}

// TestGenMeshLeftWrites: the index answers leftWorlds' writes as the plain analysis does.
func TestGenMeshLeftWrites(t *testing.T) {
	for _, lw := range leftWorlds {
		x, ps, dps, w := lw.world(t, 200)
		got := x.WriteWarnings(w, false)
		if diff := cmp.Diff(mesh.WriteWarnings(w, ps, dps, false), got); diff != "" {
			t.Errorf("%s: the index differs from the plain analysis (-plain +index):\n%s", lw.name, diff)
		}
		t.Logf("%s: %q", lw.name, got)
	}
}
