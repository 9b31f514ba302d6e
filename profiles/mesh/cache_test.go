package mesh_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
	engine "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestMeshGrouping(t *testing.T) {
	s := state.New(logr.Discard())
	for _, doc := range []string{
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: b, namespace: x}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: a, namespace: x, labels: {kuma.io/mesh: default}}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
		"{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: c, namespace: x, labels: {kuma.io/mesh: other}}, spec: {targetRef: {kind: Mesh}, to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]}}",
		"{apiVersion: kuma.io/v1alpha1, kind: Dataplane, mesh: default, metadata: {name: web, namespace: x}}",
		"{apiVersion: kuma.io/v1alpha1, kind: Dataplane, mesh: other, metadata: {name: db, namespace: x}}",
	} {
		s.Apply(object(t, doc))
	}

	names := func(ps []engine.Policy) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID())
		}
		return out
	}
	if diff := cmp.Diff([]string{"x/a", "x/b"}, names(meshprofile.Policies(s, meshprofile.MeshTimeoutKind)["default"])); diff != "" {
		t.Errorf("policies of mesh default (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x/c"}, names(meshprofile.Policies(s, meshprofile.MeshTimeoutKind)["other"])); diff != "" {
		t.Errorf("policies of mesh other (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]engine.Dataplane{{Namespace: "x", Name: "db", Mesh: "other"}}, meshprofile.Dataplanes(s)["other"], cmp.AllowUnexported(engine.Dataplane{})); diff != "" {
		t.Errorf("meshprofile.Dataplanes of mesh other (-want +got):\n%s", diff)
	}
}

// TestMeshCachesIncrementalMatchBuild applies random creates, updates (moves between meshes,
// changed tags and targets, some that no longer parse) and deletes of meshprofile.Dataplanes and MeshTimeouts
// through the State's informer handlers, with the caches built once at the start, and after every
// step compares the grouped meshprofile.Dataplanes and policies with a build over the stored objects, and the
// warnings of probe writes answered by each mesh's index with those of an index built afresh.
func TestMeshCachesIncrementalMatchBuild(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { checkMeshChurn(t, seed, 60) })
	}
}

func checkMeshChurn(t *testing.T, seed int64, steps int) {
	r := rand.New(rand.NewSource(seed))
	inf, st, ctx := watching(t)
	timeouts, dps := meshprofile.MeshTimeoutKind.WithVersion("v1alpha1"), meshprofile.DataplaneKind.WithVersion("v1alpha1")
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{timeouts.GroupVersion(), dps.GroupVersion()})
	mapper.Add(timeouts, meta.RESTScopeNamespace)
	mapper.Add(dps, meta.RESTScopeNamespace)
	if err := st.WatchProfiles(ctx, inf, mapper, []schema.GroupKind{meshprofile.MeshTimeoutKind}, schema.GroupKind{}); err != nil {
		t.Fatal(err)
	}
	if ready, err := st.WatchRead(meshprofile.DataplaneKind); err != nil || !ready {
		t.Fatalf("watching Dataplanes: ready %t, %v", ready, err)
	}
	meshes := []string{"default", "other"}
	have := map[string]*unstructured.Unstructured{}
	change := func() {
		name := fmt.Sprintf("%d", r.Intn(8))
		var u *unstructured.Unstructured
		if r.Intn(2) == 0 {
			name = "dp-" + name
			u = randomDataplane(t, r, name, meshes[r.Intn(2)])
		} else {
			name = "mt-" + name
			u = randomTimeout(t, r, name, meshes[r.Intn(2)])
		}
		old, exists := have[name]
		switch {
		case exists && r.Intn(4) == 0:
			inf.Delete(t, old)
			delete(have, name)
		case exists:
			inf.Update(t, old, u)
			have[name] = u
		default:
			inf.Add(t, u)
			have[name] = u
		}
	}
	for i := 0; i < 6; i++ {
		change()
	}
	for _, m := range meshes { // built once: the events after bring them forward
		meshprofile.Index(st, meshprofile.MeshTimeoutKind, m, engine.Kuma30)
	}
	for step := 0; step < steps; step++ {
		change()
		wantDPs := meshprofile.GroupDataplanes(st.Objects(meshprofile.DataplaneKind))
		if diff := cmp.Diff(wantDPs, meshprofile.Dataplanes(st), cmp.AllowUnexported(engine.Dataplane{})); diff != "" {
			t.Fatalf("seed %d step %d: Dataplanes (-build +incremental):\n%s", seed, step, diff)
		}
		wantPols := meshprofile.GroupPolicies(st.Objects(meshprofile.MeshTimeoutKind))
		if diff := cmp.Diff(ids(wantPols), ids(meshprofile.Policies(st, meshprofile.MeshTimeoutKind))); diff != "" {
			t.Fatalf("seed %d step %d: policies (-build +incremental):\n%s", seed, step, diff)
		}
		for _, m := range meshes {
			fresh := engine.NewIndex(meshprofile.MeshTimeoutKind.Kind+"."+meshprofile.MeshTimeoutKind.Group, wantPols[m], wantDPs[m])
			x := meshprofile.Index(st, meshprofile.MeshTimeoutKind, m, engine.Kuma30)
			for i := 0; i < 3; i++ {
				probe, errs := engine.Parse(randomTimeout(t, r, fmt.Sprintf("mt-%d", r.Intn(10)), m))
				if len(errs) > 0 {
					continue
				}
				if diff := cmp.Diff(fresh.WriteWarnings(probe, false), x.WriteWarnings(probe, false)); diff != "" {
					t.Fatalf("seed %d step %d, mesh %s, write of %s (-fresh +incremental):\n%s", seed, step, m, probe.ID(), diff)
				}
			}
		}
	}
}

func ids(g map[string][]engine.Policy) map[string][]string {
	out := map[string][]string{}
	for m, l := range g {
		for _, p := range l {
			out[m] = append(out[m], p.ID())
		}
	}
	return out
}

// randomDataplane is Dataplane name of mesh meshName, of one of three services, with outbounds to
// one or two of them; one in ten does not parse (an inbound without kuma.io/service).
func randomDataplane(t *testing.T, r *rand.Rand, name, meshName string) *unstructured.Unstructured {
	svc := fmt.Sprintf("svc-%d", r.Intn(3))
	if r.Intn(10) == 0 {
		svc = ""
	}
	return object(t, fmt.Sprintf(`{apiVersion: kuma.io/v1alpha1, kind: Dataplane, mesh: %s, metadata: {name: %s, namespace: kuma},
spec: {networking: {inbound: [{tags: {kuma.io/service: %q}}], outbound: [{tags: {kuma.io/service: svc-%d}}, {tags: {kuma.io/service: svc-%d}}]}}}`,
		meshName, name, svc, r.Intn(3), r.Intn(3)))
}

// randomTimeout is MeshTimeout name of mesh meshName, at the Mesh or a Service level, setting one or
// two fields for all outbounds or one service.
func randomTimeout(t *testing.T, r *rand.Rand, name, meshName string) *unstructured.Unstructured {
	top := "{kind: Mesh}"
	if r.Intn(2) == 0 {
		top = fmt.Sprintf("{kind: Service, name: svc-%d}", r.Intn(3))
	}
	to := "{kind: Mesh}"
	if r.Intn(2) == 0 {
		to = fmt.Sprintf("{kind: Service, name: svc-%d}", r.Intn(3))
	}
	conf := "connectTimeout: 1s"
	if r.Intn(2) == 0 {
		conf += ", http: {requestTimeout: 2s}"
	}
	return object(t, fmt.Sprintf(`{apiVersion: policy.precedent.dev/v1alpha1, kind: MeshTimeout, metadata: {name: %s, namespace: kuma, labels: {kuma.io/mesh: %s}},
spec: {targetRef: %s, to: [{targetRef: %s, %s}]}}`, name, meshName, top, to, conf))
}

// watching is a state fed by test informers, watching until the test ends.
func watching(t *testing.T) (*statetest.Informers, *state.State, context.Context) {
	inf := statetest.New(t)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := st.Watch(ctx, inf, nil); err != nil {
		t.Fatal(err)
	}
	return inf, st, ctx
}

// TestMeshIndexFollowsMeshServices: a kuma.io MeshTimeout's to item naming MeshServices by labels
// is resolved against the MeshServices the state holds, and the index follows their events: a
// relabelled MeshService no longer resolves, and the event stepped the index: the write after it
// builds nothing.
func TestMeshIndexFollowsMeshServices(t *testing.T) {
	inf, st, ctx := watching(t)
	kumaTimeouts := schema.GroupKind{Group: engine.KumaGroup, Kind: engine.KindMeshTimeout}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: engine.KumaGroup, Version: "v1alpha1"}})
	for _, gk := range []schema.GroupKind{kumaTimeouts, meshprofile.DataplaneKind, meshprofile.MeshServiceKind} {
		mapper.Add(gk.WithVersion("v1alpha1"), meta.RESTScopeNamespace)
	}
	if err := st.WatchProfiles(ctx, inf, mapper, []schema.GroupKind{kumaTimeouts}, schema.GroupKind{}); err != nil {
		t.Fatal(err)
	}
	for _, gk := range []schema.GroupKind{meshprofile.DataplaneKind, meshprofile.MeshServiceKind} {
		if ready, err := st.WatchRead(gk); err != nil || !ready {
			t.Fatalf("watching %s: ready %t, %v", gk, ready, err)
		}
	}
	service := func(team string) *unstructured.Unstructured {
		return object(t, "{apiVersion: kuma.io/v1alpha1, kind: MeshService, metadata: {name: backend, namespace: shop, labels: {team: "+team+"}}, spec: {ports: [{port: 80}]}}")
	}
	svc := service("payments")
	for _, u := range []*unstructured.Unstructured{
		object(t, "{apiVersion: kuma.io/v1alpha1, kind: Dataplane, mesh: default, metadata: {name: web-1, namespace: shop}, spec: {networking: {inbound: [{tags: {kuma.io/service: web}}], outbound: [{tags: {kuma.io/service: backend}}]}}}"),
		svc,
		object(t, "{apiVersion: kuma.io/v1alpha1, kind: MeshTimeout, metadata: {name: a-payments, namespace: shop}, spec: {to: [{targetRef: {kind: MeshService, labels: {team: payments}}, default: {connectionTimeout: 3s}}]}}"),
	} {
		inf.Add(t, u)
	}
	everything := object(t, "{apiVersion: kuma.io/v1alpha1, kind: MeshTimeout, metadata: {name: b-everything, namespace: shop}, spec: {to: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 1s}}]}}")
	written, errs := engine.Parse(everything)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	warnings := func() []string {
		return meshprofile.Index(st, kumaTimeouts, "default", engine.Kuma30).WriteWarnings(written, true)
	}
	want := []string{"PRC-W014 MeshTimeout shop/b-everything never takes effect on any Dataplane: every field it sets is decided by shop/a-payments"}
	if diff := cmp.Diff(want, warnings()); diff != "" {
		t.Errorf("labels resolved (-want +got):\n%s", diff)
	}
	meshprofile.IndexBuilds()
	inf.Update(t, svc, service("search"))
	if diff := cmp.Diff([]string(nil), warnings()); diff != "" {
		t.Errorf("MeshService relabelled (-want +got):\n%s", diff)
	}
	if n := meshprofile.IndexBuilds(); n != 0 {
		t.Errorf("the write after the MeshService event built the index whole %d times, want 0", n)
	}
}
