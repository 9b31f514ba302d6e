package mesh_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
	engine "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

var kumaTimeoutKind = schema.GroupKind{Group: engine.KumaGroup, Kind: engine.KindMeshTimeout}

// TestMeshIndexStepsWithServices applies random creates, updates and deletes of MeshServices
// (relabelled, moved between meshes, some that no longer parse), Dataplanes and kuma.io MeshTimeouts
// (some naming MeshServices by labels, by name, or the whole mesh) through the State's informer
// handlers, with each mesh's index built once at the start. After every event, each mesh's index
// must answer probe writes (every stored policy written again as it is, and random new ones) as an
// index built whole from the stored objects answers them, and no index may have been built whole:
// the events stepped them all.
func TestMeshIndexStepsWithServices(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { checkServiceChurn(t, seed, 80) })
	}
}

func checkServiceChurn(t *testing.T, seed int64, steps int) {
	r := rand.New(rand.NewSource(seed))
	inf, st, ctx := watching(t)
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: engine.KumaGroup, Version: "v1alpha1"}})
	for _, gk := range []schema.GroupKind{kumaTimeoutKind, meshprofile.DataplaneKind, meshprofile.MeshServiceKind} {
		mapper.Add(gk.WithVersion("v1alpha1"), meta.RESTScopeNamespace)
	}
	if err := st.WatchProfiles(ctx, inf, mapper, []schema.GroupKind{kumaTimeoutKind}, schema.GroupKind{}); err != nil {
		t.Fatal(err)
	}
	for _, gk := range []schema.GroupKind{meshprofile.DataplaneKind, meshprofile.MeshServiceKind} {
		if ready, err := st.WatchRead(gk); err != nil || !ready {
			t.Fatalf("watching %s: ready %t, %v", gk, ready, err)
		}
	}
	meshes := []string{"default", "other"}
	have := map[string]*unstructured.Unstructured{}
	change := func() string {
		var name string
		var u *unstructured.Unstructured
		switch k := r.Intn(3); {
		case k == 0:
			name = fmt.Sprintf("dp-%d", r.Intn(6))
			u = randomDataplane(t, r, name, meshes[r.Intn(2)])
		case k == 1:
			name = fmt.Sprintf("svc-%d", r.Intn(4))
			u = randomService(t, r, name, meshes[r.Intn(2)])
		default:
			name = fmt.Sprintf("mt-%d", r.Intn(6))
			u = randomKumaTimeout(t, r, name, meshes[r.Intn(2)])
		}
		old, exists := have[name]
		switch {
		case exists && r.Intn(5) == 0:
			inf.Delete(t, old)
			delete(have, name)
			return "delete " + name
		case exists:
			inf.Update(t, old, u)
			have[name] = u
			return "update " + name
		default:
			inf.Add(t, u)
			have[name] = u
			return "add " + name
		}
	}
	for i := 0; i < 10; i++ {
		change()
	}
	for _, m := range meshes { // built once: the events after bring them forward
		meshprofile.Index(st, kumaTimeoutKind, m, engine.Kuma30)
	}
	meshprofile.IndexBuilds()
	for step := 0; step < steps; step++ {
		event := change()
		for _, m := range meshes {
			fresh := meshprofile.FreshIndex(st, kumaTimeoutKind, m, engine.Kuma30)
			x := meshprofile.Index(st, kumaTimeoutKind, m, engine.Kuma30)
			if n := meshprofile.IndexBuilds(); n != 0 {
				t.Fatalf("seed %d step %d (%s): the index of mesh %s was built whole %d times: the event did not step it", seed, step, event, m, n)
			}
			for _, probe := range probes(t, r, st.Objects(kumaTimeoutKind), m) {
				if diff := cmp.Diff(fresh.WriteWarnings(probe, false), x.WriteWarnings(probe, false)); diff != "" {
					t.Fatalf("seed %d step %d (%s), mesh %s, write of %s (-whole +stepped):\n%s", seed, step, event, m, probe.ID(), diff)
				}
			}
		}
	}
}

// probes are the writes a test asks an index about: every stored policy of mesh m written again as
// it is, and two new ones.
func probes(t *testing.T, r *rand.Rand, stored []*unstructured.Unstructured, m string) []engine.Policy {
	objs := []*unstructured.Unstructured{randomKumaTimeout(t, r, "mt-new", m), randomKumaTimeout(t, r, "mt-newer", m)}
	for _, u := range stored {
		if meshprofile.PolicyMesh(u) == m {
			objs = append(objs, u)
		}
	}
	var out []engine.Policy
	for _, u := range objs {
		if p, errs := engine.Parse(u); len(errs) == 0 {
			out = append(out, p)
		}
	}
	return out
}

// randomService is MeshService name of mesh meshName (its kuma.io/mesh label; none for default, at
// times), of team a or b, at times of tier x too; one in ten does not parse (a port out of range).
func randomService(t *testing.T, r *rand.Rand, name, meshName string) *unstructured.Unstructured {
	labels := []string{"team: " + []string{"a", "b"}[r.Intn(2)]}
	if r.Intn(3) == 0 {
		labels = append(labels, "tier: x")
	}
	if meshName != "default" || r.Intn(2) == 0 {
		labels = append(labels, "kuma.io/mesh: "+meshName)
	}
	port := 80
	if r.Intn(10) == 0 {
		port = 70000
	}
	return object(t, fmt.Sprintf("{apiVersion: kuma.io/v1alpha1, kind: MeshService, metadata: {name: %s, namespace: kuma, labels: {%s}}, spec: {ports: [{port: %d}]}}",
		name, strings.Join(labels, ", "), port))
}

// randomKumaTimeout is kuma.io MeshTimeout name of mesh meshName, with one or two to items: the
// whole mesh, a MeshService by name, or MeshServices by labels (team, at times tier too).
func randomKumaTimeout(t *testing.T, r *rand.Rand, name, meshName string) *unstructured.Unstructured {
	var to []string
	for n := 1 + r.Intn(2); n > 0; n-- {
		ref := "{kind: Mesh}"
		switch r.Intn(3) {
		case 0:
			ref = fmt.Sprintf("{kind: MeshService, name: svc-%d}", r.Intn(4))
		case 1:
			sel := "team: " + []string{"a", "b"}[r.Intn(2)]
			if r.Intn(3) == 0 {
				sel += ", tier: x"
			}
			ref = "{kind: MeshService, labels: {" + sel + "}}"
		}
		to = append(to, fmt.Sprintf("{targetRef: %s, default: {connectionTimeout: %ds}}", ref, 1+r.Intn(3)))
	}
	return object(t, fmt.Sprintf("{apiVersion: kuma.io/v1alpha1, kind: MeshTimeout, metadata: {name: %s, namespace: kuma, labels: {kuma.io/mesh: %s}}, spec: {to: [%s]}}",
		name, meshName, strings.Join(to, ", ")))
}
