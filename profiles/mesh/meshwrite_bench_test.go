package mesh_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
	"github.com/precedent-dev/precedent/test/gen"
)

// genMesh is test/gen's Mesh at n Dataplanes (the webhook's BenchmarkScaleProfiles world: ten
// Dataplanes and a Service-level MeshTimeout per service, ten mesh-level MeshTimeouts) as the
// index's input, and the Mesh-level write that benchmark reviews: a copy of mesh-0-timeouts named
// bench-0.
func genMesh(tb testing.TB, n int) ([]mesh.Policy, []mesh.Dataplane, mesh.Policy) {
	var ps []mesh.Policy
	var dps []mesh.Dataplane
	for _, u := range gen.Mesh(n) {
		switch u.GetKind() {
		case mesh.KindDataplane:
			dp, err := mesh.ParseDataplane(u)
			if err != nil {
				tb.Fatal(err)
			}
			dps = append(dps, dp)
		case mesh.KindMeshTimeout:
			p, errs := mesh.Parse(u)
			if len(errs) > 0 {
				tb.Fatal(errs.ToAggregate())
			}
			ps = append(ps, p)
		}
	}
	u := gen.MeshTimeout("bench-0", "", "", 5)
	w, errs := mesh.Parse(u)
	if len(errs) > 0 {
		tb.Fatal(errs.ToAggregate())
	}
	return ps, dps, w
}

// timeWrite times x's review of write w, the benchmark's loop of every mesh-level write benchmark.
func timeWrite(b *testing.B, x *mesh.Index, w mesh.Policy) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = x.WriteWarnings(w, false)
	}
}

// BenchmarkIndexWriteMeshLevel is the review of a Mesh-level MeshTimeout write through an Index
// over test/gen's mesh at 5,000 and 50,000 Dataplanes (500 and 5,000 classes): the index answers
// it from its heads' shapes (engine/meshwrite.go), whose cost does not grow with the classes.
func BenchmarkIndexWriteMeshLevel(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps, w := genMesh(b, n)
			x := mesh.NewIndex(mesh.KindMeshTimeout, ps, dps)
			timeWrite(b, x, w)
		})
	}
}

// TestGenMeshWrite: the index answers the benchmark's write as the plain analysis does, at a size
// the plain analysis takes in a moment.
func TestGenMeshWrite(t *testing.T) {
	ps, dps, w := genMesh(t, 200)
	got := mesh.NewIndex(mesh.KindMeshTimeout, ps, dps).WriteWarnings(w, false)
	want := []string{"PRC-W014 MeshTimeout kuma-system/bench-0 never takes effect on any Dataplane: every field it sets is decided by kuma-system/svc-9-timeouts, kuma-system/svc-8-timeouts, kuma-system/svc-7-timeouts and 18 more"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("meshWrite (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(mesh.WriteWarnings(w, ps, dps, false), got); diff != "" {
		t.Errorf("meshWrite differs from the plain analysis (-plain +meshWrite):\n%s", diff)
	}
}

// BenchmarkIndexMeshLevelEvent is the informer side of the same write: the index's next version
// once the Mesh-level policy is created (every class gets it), at 5,000 and 50,000 Dataplanes.
func BenchmarkIndexMeshLevelEvent(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			ps, dps, w := genMesh(b, n)
			x := mesh.NewIndex(mesh.KindMeshTimeout, ps, dps)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = x.WithPolicy(w.ID(), &w)
			}
		})
	}
}

// serviceWrites are Mesh-level MeshTimeout writes whose to items name a service, the most common
// shape of Kuma's mesh-level policies: one item on svc-0 only, and (test/gen's MeshTimeout) one on
// svc-0 and one on the Mesh.
func serviceWrites(tb testing.TB) map[string]mesh.Policy {
	one := gen.MeshTimeout("bench-0", "", "svc-0", 5)
	spec := one.Object["spec"].(map[string]interface{})
	spec["to"] = spec["to"].([]interface{})[:1]
	out := map[string]mesh.Policy{}
	for name, u := range map[string]*unstructured.Unstructured{"service": one, "service+mesh": gen.MeshTimeout("bench-0", "", "svc-0", 5)} {
		p, errs := mesh.Parse(u)
		if len(errs) > 0 {
			tb.Fatal(errs.ToAggregate())
		}
		out[name] = p
	}
	return out
}

// BenchmarkIndexWriteMeshLevelService is BenchmarkIndexWriteMeshLevel for the writes of
// serviceWrites: the index visits the classes with outbounds to svc-0 (10 of 500 or 5,000).
func BenchmarkIndexWriteMeshLevelService(b *testing.B) {
	for _, to := range []string{"service", "service+mesh"} {
		for _, n := range []int{5000, 50000} {
			b.Run(fmt.Sprintf("to=%s/dataplanes=%d", to, n), func(b *testing.B) {
				ps, dps, _ := genMesh(b, n)
				w := serviceWrites(b)[to]
				x := mesh.NewIndex(mesh.KindMeshTimeout, ps, dps)
				timeWrite(b, x, w)
			})
		}
	}
}

// TestGenMeshServiceWrites: the index answers serviceWrites as the plain analysis does. On svc-0
// only svc-19's policy sets the connect timeout; the others' outbounds to svc-0 take
// mesh-9-timeouts's.
func TestGenMeshServiceWrites(t *testing.T) {
	ps, dps, _ := genMesh(t, 200)
	x := mesh.NewIndex(mesh.KindMeshTimeout, ps, dps)
	want := map[string][]string{
		"service":      {"PRC-W014 MeshTimeout kuma-system/bench-0 never takes effect on any Dataplane: every field it sets is decided by kuma-system/svc-19-timeouts, kuma-system/mesh-9-timeouts"},
		"service+mesh": {"PRC-W014 MeshTimeout kuma-system/bench-0 never takes effect on any Dataplane: every field it sets is decided by kuma-system/svc-9-timeouts, kuma-system/svc-8-timeouts, kuma-system/svc-7-timeouts and 18 more"},
	}
	for name, w := range serviceWrites(t) {
		got := x.WriteWarnings(w, false)
		if diff := cmp.Diff(want[name], got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(mesh.WriteWarnings(w, ps, dps, false), got); diff != "" {
			t.Errorf("%s: the index differs from the plain analysis (-plain +index):\n%s", name, diff)
		}
	}
}

// precedentPolicy is Precedent's policy of kind name in kuma-system on the Dataplanes of service
// on (the whole mesh when ""), with one from item: fields on the sources of service from (every
// source when "").
func precedentPolicy(tb testing.TB, kind, name, on, from string, fields map[string]interface{}) mesh.Policy {
	ref := func(svc string) map[string]interface{} {
		if svc == "" {
			return map[string]interface{}{"kind": "Mesh"}
		}
		return map[string]interface{}{"kind": "Service", "name": svc}
	}
	item := map[string]interface{}{"targetRef": ref(from)}
	for k, v := range fields {
		item[k] = v
	}
	p, errs := mesh.Parse(&unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "policy.precedent.dev/v1alpha1", "kind": kind,
		"metadata": map[string]interface{}{"name": name, "namespace": "kuma-system"},
		"spec":     map[string]interface{}{"targetRef": ref(on), "from": []interface{}{item}},
	}})
	if len(errs) > 0 {
		tb.Fatal(errs.ToAggregate())
	}
	return p
}

// fromWorld is a Mesh-level write with a from item on the Mesh and the index it meets over
// test/gen's mesh at n Dataplanes: "timeout", a MeshTimeout (connect timeout from every source)
// among genMesh's MeshTimeouts; "permission", the most common MeshTrafficPermission (every source
// allowed) among one per service that allows the previous service and denies the Mesh, and
// (as Kuma's default mesh's allow-all) one Mesh-level policy allowing every source.
func fromWorld(tb testing.TB, kind string, n int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy) {
	ps, dps, _ := genMesh(tb, n)
	if kind == "timeout" {
		w := precedentPolicy(tb, mesh.KindMeshTimeout, "bench-0", "", "", map[string]interface{}{"connectTimeout": "5s"})
		return mesh.NewIndex(mesh.KindMeshTimeout, ps, dps), ps, dps, w
	}
	services := max(n/10, 1)
	ps = nil
	for i := 0; i < services; i++ {
		svc, prev := fmt.Sprintf("svc-%d", i), fmt.Sprintf("svc-%d", (i+services-1)%services)
		ps = append(ps, precedentPolicy(tb, mesh.KindMeshTrafficPermission, svc+"-permission", svc, prev, map[string]interface{}{"action": "ALLOW"}))
	}
	ps = append(ps, precedentPolicy(tb, mesh.KindMeshTrafficPermission, "allow-all", "", "", map[string]interface{}{"action": "ALLOW"}))
	w := precedentPolicy(tb, mesh.KindMeshTrafficPermission, "bench-0", "", "", map[string]interface{}{"action": "ALLOW"})
	return mesh.NewIndex(mesh.KindMeshTrafficPermission, ps, dps), ps, dps, w
}

// BenchmarkIndexWriteMeshLevelFrom is BenchmarkIndexWriteMeshLevel for the writes of fromWorld,
// whose from items are on the Mesh: the index answers them from its heads' from shapes.
func BenchmarkIndexWriteMeshLevelFrom(b *testing.B) {
	for _, kind := range []string{"timeout", "permission"} {
		for _, n := range []int{5000, 50000} {
			b.Run(fmt.Sprintf("kind=%s/dataplanes=%d", kind, n), func(b *testing.B) {
				x, _, _, w := fromWorld(b, kind, n)
				timeWrite(b, x, w)
			})
		}
	}
}

// TestGenMeshFromWrites: the index answers fromWorld's writes as the plain analysis does.
func TestGenMeshFromWrites(t *testing.T) {
	for _, kind := range []string{"timeout", "permission"} {
		x, ps, dps, w := fromWorld(t, kind, 200)
		got := x.WriteWarnings(w, false)
		if diff := cmp.Diff(mesh.WriteWarnings(w, ps, dps, false), got); diff != "" {
			t.Errorf("%s: the index differs from the plain analysis (-plain +index):\n%s", kind, diff)
		}
		t.Logf("%s: %q", kind, got)
	}
}

// BenchmarkIndexFromGroupEvent is what the informer pays for the from heads where they cost most:
// in fromWorld's MeshTrafficPermission mesh, a Dataplane of a service no from item names, whose
// sources make a group appear, so that every class with from entries (all of them: allow-all is
// on the Mesh) is recomputed, its from heads too.
func BenchmarkIndexFromGroupEvent(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			x, _, _, _ := fromWorld(b, "permission", n)
			dp := mesh.Dataplane{Namespace: "kuma-demo", Name: "new-1", Inbound: []map[string]string{{mesh.ServiceTag: "svc-new"}},
				Outbound: []map[string]string{{mesh.ServiceTag: "svc-0"}}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = x.WithDataplane(mesh.DataplaneKey(&dp), &dp)
			}
		})
	}
}

// kumaPolicy is Kuma's MeshTimeout name in kuma-system on top (a targetRef), with one to item on
// the Mesh setting conf.
func kumaPolicy(tb testing.TB, name string, top, conf map[string]interface{}) mesh.Policy {
	p, errs := mesh.Parse(&unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "kuma.io/v1alpha1", "kind": mesh.KindMeshTimeout,
		"metadata": map[string]interface{}{"name": name, "namespace": "kuma-system", "labels": map[string]interface{}{"kuma.io/mesh": "default"}},
		"spec": map[string]interface{}{"targetRef": top, "to": []interface{}{
			map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Mesh"}, "default": conf},
		}},
	}})
	if len(errs) > 0 {
		tb.Fatal(errs.ToAggregate())
	}
	return p
}

// proxyTypesWorld is test/gen's Dataplanes at n, every fiftieth a gateway, with Kuma's MeshTimeouts:
// one per service and Kuma's two defaults (mesh-timeout-all-default for the sidecars,
// mesh-gateways-timeout-all-default for the gateways); and a write of a Mesh-level MeshTimeout for
// the sidecars, which joins the classes of the sidecars' default.
func proxyTypesWorld(tb testing.TB, n int) (*mesh.Index, []mesh.Policy, []mesh.Dataplane, mesh.Policy) {
	_, dps, _ := genMesh(tb, n)
	for i := range dps {
		dps[i].Gateway = i%50 == 0
	}
	meshRef := func(types ...interface{}) map[string]interface{} {
		return map[string]interface{}{"kind": "Mesh", "proxyTypes": types}
	}
	var ps []mesh.Policy
	for i := 0; i < max(n/10, 1); i++ {
		svc := fmt.Sprintf("svc-%d", i)
		ps = append(ps, kumaPolicy(tb, svc+"-timeouts", map[string]interface{}{"kind": "MeshService", "name": svc},
			map[string]interface{}{"connectionTimeout": "1s"}))
	}
	ps = append(ps, kumaPolicy(tb, "mesh-timeout-all-default", meshRef("Sidecar"), map[string]interface{}{"idleTimeout": "1h"}),
		kumaPolicy(tb, "mesh-gateways-timeout-all-default", meshRef("Gateway"), map[string]interface{}{"idleTimeout": "1h"}))
	w := kumaPolicy(tb, "bench-0", meshRef("Sidecar"), map[string]interface{}{"connectionTimeout": "5s"})
	return mesh.NewIndex(mesh.KindMeshTimeout+"."+mesh.KumaGroup, ps, dps), ps, dps, w
}

// BenchmarkIndexWriteMeshLevelProxyTypes is BenchmarkIndexWriteMeshLevel for proxyTypesWorld's
// write, a Mesh-level policy for the sidecars only: the index answers it from the heads of the
// sidecars' variant.
func BenchmarkIndexWriteMeshLevelProxyTypes(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		b.Run(fmt.Sprintf("dataplanes=%d", n), func(b *testing.B) {
			x, _, _, w := proxyTypesWorld(b, n)
			timeWrite(b, x, w)
		})
	}
}

// TestGenMeshProxyTypesWrite: the index answers proxyTypesWorld's write as the plain analysis does.
func TestGenMeshProxyTypesWrite(t *testing.T) {
	x, ps, dps, w := proxyTypesWorld(t, 200)
	got := x.WriteWarnings(w, false)
	if diff := cmp.Diff(mesh.WriteWarnings(w, ps, dps, false), got); diff != "" {
		t.Errorf("the index differs from the plain analysis (-plain +index):\n%s", diff)
	}
	if len(got) == 0 {
		t.Error("the write is not warned about: the comparison says little")
	}
	t.Logf("%q", got)
}
