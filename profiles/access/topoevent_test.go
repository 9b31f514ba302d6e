package access_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

// TestAccessCacheTopologyEventsMatchBuild applies random Gateway, HTTPRoute and Namespace events
// (Gateways created and deleted with Same, All or label-selected allowedRoutes, routes moved between
// Gateways and Backends and namespaces, namespaces relabelled) and policy events through the State's
// informer handlers, the access cache built once at the start, and after every step compares the
// Backends behind each Gateway with a topology built from the stored objects, and the warnings of
// probe writes and deletes with the reference projection over that topology.
func TestAccessCacheTopologyEventsMatchBuild(t *testing.T) {
	steps, warned := 0, 0
	for seed := int64(1); seed <= 10; seed++ {
		s, w := checkTopologyChurn(t, seed, 60)
		steps, warned = steps+s, warned+w
	}
	t.Logf("%d steps compared, %d probe answers with warnings", steps, warned)
	if warned < steps {
		t.Errorf("the probes warn too rarely to compare: %d answers with warnings over %d steps", warned, steps)
	}
}

func checkTopologyChurn(t *testing.T, seed int64, steps int) (compared, warned int) {
	r := rand.New(rand.NewSource(seed))
	st, inf := watchedState(t)
	as := access.DefaultSettings()
	have := map[string]client.Object{}
	apply := func(name string, o client.Object, remove bool) {
		old, exists := have[name]
		switch {
		case exists && remove:
			inf.Delete(t, old)
			delete(have, name)
		case remove:
		case exists:
			inf.Update(t, old, o)
			have[name] = o
		default:
			inf.Add(t, o)
			have[name] = o
		}
	}
	change := func() {
		remove := r.Intn(5) == 0
		switch n := r.Intn(10); {
		case n < 2:
			name := fmt.Sprintf("gw-%d", r.Intn(3))
			apply("gateway/"+name, randomGateway(r, name), remove)
		case n < 6:
			ns := []string{"shop", "team"}[r.Intn(2)]
			name := fmt.Sprintf("route-%d", r.Intn(6))
			apply("route/"+ns+"/"+name, randomRoute(r, ns, name), remove)
		case n < 7:
			ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "team"}}
			if r.Intn(2) == 0 {
				ns.Labels = map[string]string{"agents": "yes"}
			}
			apply("namespace/team", ns, remove)
		default:
			name := fmt.Sprintf("p-%d", r.Intn(6))
			apply("policy/"+name, randomAccessPolicy(t, r, name), remove)
		}
	}
	for i := 0; i < 10; i++ {
		change()
	}
	accessprofile.Grants(st, access.AccessPolicyKind, as) // built once: the events after bring it forward

	for step := 0; step < steps; step++ {
		change()
		gateways, routes, nsLabels := st.HTTPTopology()
		topo := access.TopologyOf(gateways, routes, nsLabels, as)
		got := accessprofile.Topology(st, as)
		for g := 0; g < 3; g++ {
			gw := fmt.Sprintf("shop/gw-%d", g)
			if diff := cmp.Diff(topo.BackendsBehind(gw), got.BackendsBehind(gw)); diff != "" {
				t.Fatalf("seed %d step %d: Backends behind %s (-build +incremental):\n%s", seed, step, gw, diff)
			}
		}
		var stored []access.Policy
		for _, u := range st.Objects(access.AccessPolicyKind) {
			if p, errs := access.Parse(u, storedAccess(as)); len(errs) == 0 {
				stored = append(stored, p)
			}
		}
		slices.SortFunc(stored, func(a, b access.Policy) int { return strings.Compare(a.Key(), b.Key()) })
		g := accessprofile.Grants(st, access.AccessPolicyKind, as)
		for i := 0; i < 6; i++ {
			w, errs := access.Parse(randomAccessPolicy(t, r, fmt.Sprintf("p-%d", r.Intn(8))), as)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			want := access.ProjectWrite(w, stored, &topo, as, 5)
			if diff := cmp.Diff(want, g.ProjectWrite(w, 5)); diff != "" {
				t.Fatalf("seed %d step %d, write of %s (-full +incremental):\n%s", seed, step, w.Key(), diff)
			}
			if len(want) > 0 {
				warned++
			}
		}
		for _, d := range stored {
			if diff := cmp.Diff(access.ProjectDelete(d, stored, &topo, as, 5), g.ProjectDelete(d, 5)); diff != "" {
				t.Fatalf("seed %d step %d, delete of %s (-full +incremental):\n%s", seed, step, d.Key(), diff)
			}
		}
		compared++
	}
	return compared, warned
}

// randomGateway is Gateway shop/name with one HTTP listener admitting routes from its namespace,
// from all, or from the namespaces labelled agents=yes.
func randomGateway(r *rand.Rand, name string) *gwv1.Gateway {
	from := []gwv1.FromNamespaces{gwv1.NamespacesFromSame, gwv1.NamespacesFromAll, gwv1.NamespacesFromSelector}[r.Intn(3)]
	ns := &gwv1.RouteNamespaces{From: &from}
	if from == gwv1.NamespacesFromSelector {
		ns.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"agents": "yes"}}
	}
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
		Spec: gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType,
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: ns}}}},
	}
}

// randomRoute is HTTPRoute ns/name with parentRefs to one or two shop Gateways and backendRefs to
// one or two shop Backends (be-0 … be-8, the policies' targets).
func randomRoute(r *rand.Rand, ns, name string) *gwv1.HTTPRoute {
	group, kind, shop := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind), gwv1.Namespace("shop")
	rt := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for n := 1 + r.Intn(2); n > 0; n-- {
		rt.Spec.ParentRefs = append(rt.Spec.ParentRefs, gwv1.ParentReference{Namespace: &shop, Name: gwv1.ObjectName(fmt.Sprintf("gw-%d", r.Intn(3)))})
	}
	var refs []gwv1.HTTPBackendRef
	for n := 1 + r.Intn(2); n > 0; n-- {
		refs = append(refs, gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
			Group: &group, Kind: &kind, Namespace: &shop, Name: gwv1.ObjectName(fmt.Sprintf("be-%d", r.Intn(9)))}}})
	}
	rt.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: refs}}
	return rt
}
