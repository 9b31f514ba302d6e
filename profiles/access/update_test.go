package access_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

// TestAccessGrantsIncrementalMatchesFullBuild applies random sequences of AccessPolicy creates,
// updates (rules, targets, level) and deletes through the State's informer handlers, with the grants
// built once at the start, and after every step compares the warnings of probe writes and deletes
// answered by the State's grants with those of the reference projection over the stored policies.
func TestAccessGrantsIncrementalMatchesFullBuild(t *testing.T) {
	steps, warned := 0, 0
	for seed := int64(1); seed <= 12; seed++ {
		s, w := checkAccessChurn(t, seed, 40)
		steps, warned = steps+s, warned+w
	}
	t.Logf("%d steps compared, %d probe answers with warnings", steps, warned)
	if warned < steps {
		t.Errorf("the probes warn too rarely to compare: %d answers with warnings over %d steps", warned, steps)
	}
}

func checkAccessChurn(t *testing.T, seed int64, steps int) (compared, warned int) {
	r := rand.New(rand.NewSource(seed))
	st, inf := watchedState(t)
	group, kind := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind)
	for g := 0; g < 3; g++ {
		inf.Add(t, &gwv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("gw-%d", g)},
			Spec:       gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
		})
	}
	for b := 0; b < 8; b++ { // one route per Backend, to one or two Gateways; be-8 sits behind none
		rt := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("be-%d", b)}}
		for g := 0; g < 3; g++ {
			if g == b%3 || r.Intn(3) == 0 {
				rt.Spec.ParentRefs = append(rt.Spec.ParentRefs, gwv1.ParentReference{Name: gwv1.ObjectName(fmt.Sprintf("gw-%d", g))})
			}
		}
		rt.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Group: &group, Kind: &kind, Name: gwv1.ObjectName(rt.Name)}}}}}}
		inf.Add(t, rt)
	}
	as := access.DefaultSettings()
	if seed%2 == 0 {
		as.Combine = access.AllAllow
	}
	have := map[string]*unstructured.Unstructured{}
	for i := 0; i < 6; i++ {
		u := randomAccessPolicy(t, r, fmt.Sprintf("p-%d", i))
		inf.Add(t, u)
		have[u.GetName()] = u
	}
	accessprofile.Grants(st, access.AccessPolicyKind, as) // built once: every event after brings it forward

	for step := 0; step < steps; step++ {
		name := fmt.Sprintf("p-%d", r.Intn(10))
		old, exists := have[name]
		switch {
		case exists && r.Intn(4) == 0:
			inf.Delete(t, old)
			delete(have, name)
		case exists:
			u := randomAccessPolicy(t, r, name)
			u.SetCreationTimestamp(old.GetCreationTimestamp())
			inf.Update(t, old, u)
			have[name] = u
		default:
			u := randomAccessPolicy(t, r, name)
			inf.Add(t, u)
			have[name] = u
		}
		var stored []access.Policy
		for _, u := range have {
			if p, errs := access.Parse(u, storedAccess(as)); len(errs) == 0 {
				stored = append(stored, p)
			}
		}
		slices.SortFunc(stored, func(a, b access.Policy) int { return strings.Compare(a.Key(), b.Key()) })
		topo := accessprofile.Topology(st, as)
		g := accessprofile.Grants(st, access.AccessPolicyKind, as)
		for i := 0; i < 4; i++ {
			probe := randomAccessPolicy(t, r, fmt.Sprintf("p-%d", r.Intn(12)))
			if o := have[probe.GetName()]; o != nil {
				probe.SetCreationTimestamp(o.GetCreationTimestamp())
			}
			w, errs := access.Parse(probe, as)
			if len(errs) > 0 {
				t.Fatalf("probe %s: %v", probe.GetName(), errs)
			}
			want := access.ProjectWrite(w, stored, topo, as, 5)
			if diff := cmp.Diff(want, g.ProjectWrite(w, 5)); diff != "" {
				t.Fatalf("seed %d step %d, write of %s (-full +incremental):\n%s", seed, step, w.Key(), diff)
			}
			if len(want) > 0 {
				warned++
			}
		}
		for _, d := range stored {
			want := access.ProjectDelete(d, stored, topo, as, 5)
			if diff := cmp.Diff(want, g.ProjectDelete(d, 5)); diff != "" {
				t.Fatalf("seed %d step %d, delete of %s (-full +incremental):\n%s", seed, step, d.Key(), diff)
			}
		}
		compared++
	}
	return compared, warned
}

// randomAccessPolicy is an AccessPolicy named name in namespace shop, at the Gateway or the Backend
// level (one or two targets), whose rules grant a few tools to one of two ServiceAccounts.
func randomAccessPolicy(t *testing.T, r *rand.Rand, name string) *unstructured.Unstructured {
	var targets []string
	gatewayLevel := r.Intn(2) == 0
	for n := 1 + r.Intn(2); n > 0; n-- {
		if gatewayLevel {
			targets = append(targets, fmt.Sprintf("{group: %s, kind: Gateway, name: gw-%d}", access.GatewayGroup, r.Intn(3)))
		} else {
			targets = append(targets, fmt.Sprintf("{group: %s, kind: %s, name: be-%d}", access.DefaultBackendGroup, access.DefaultBackendKind, r.Intn(9)))
		}
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)
	var rules []string
	tools := []string{"read", "write", "admin", "list"}
	for i, n := 0, 1+r.Intn(2); i < n; i++ {
		var ts []string
		for m := 1 + r.Intn(3); m > 0; m-- {
			ts = append(ts, tools[r.Intn(len(tools))])
		}
		slices.Sort(ts)
		rules = append(rules, fmt.Sprintf("{name: r%d, source: {type: ServiceAccount, serviceAccount: {name: agent-%d}}, authorization: {type: InlineTools, tools: [%s]}}",
			i, r.Intn(2), strings.Join(slices.Compact(ts), ", ")))
	}
	doc := fmt.Sprintf("{apiVersion: policy.precedent.dev/v1alpha1, kind: AccessPolicy, metadata: {name: %s, namespace: shop, creationTimestamp: %q}, spec: {targetRefs: [%s], rules: [%s]}}",
		name, time.Date(2026, 4, 1, 10, r.Intn(3), 0, 0, time.UTC).Format(time.RFC3339), strings.Join(targets, ", "), strings.Join(rules, ", "))
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// storedAccess is as for reading stored policies, as the profile reads them: mixing InlineTools and
// ExternalAuth allowed.
func storedAccess(as access.Settings) access.Settings {
	as.AllowMixedAuthorization = true
	return as
}
