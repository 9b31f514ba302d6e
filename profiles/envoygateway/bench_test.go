package envoygateway

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
	"github.com/precedent-dev/precedent/test/gen"
)

// The sizes of the profile's benchmarks: gen's worlds at 1,000 and 10,000 routes, each policy of gen
// made one SecurityPolicy and one BackendTrafficPolicy on its target (10,000 Envoy Gateway policies
// at the full size). The costs must stay flat between the two.
var benchSizes = []gen.Size{
	{Gateways: 100, Routes: 1000, Policies: 500},
	{Gateways: 1000, Routes: 10000, Policies: 5000},
}

// benchWorld is a State fed through its informer handlers with gen's world of size sz, its Gateways
// of a GatewayClass of Envoy Gateway's controller, and Envoy Gateway's policies on gen's targets
// (gen.EnvoyGateway); the snapshot built. It returns the policies delivered, in gen's order (Gateway
// policies first).
func benchWorld(b *testing.B, sz gen.Size) (*state.State, *statetest.Informers, profile.Request, []*unstructured.Unstructured) {
	st, inf, r, pols, _ := benchWorldOf(b, sz)
	return st, inf, r, pols
}

// benchWorldOf is benchWorld, with gen's world.
func benchWorldOf(b *testing.B, sz gen.Size) (*state.State, *statetest.Informers, profile.Request, []*unstructured.Unstructured, gen.World) {
	w := gen.Generate(sz)
	kinds := []policy.Kind{kind(engine.SecurityPolicy, nil), kind(engine.BackendTrafficPolicy, nil)}
	st, inf := state.New(logr.Discard()), statetest.New(b)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	if err := st.Watch(ctx, inf, kinds); err != nil {
		b.Fatal(err)
	}
	// A mapper that knows ReferenceGrants alone of the kinds the profile reads: the others are not
	// installed.
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{{Group: gwv1.GroupName, Version: "v1beta1"}})
	mapper.Add(schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1beta1", Kind: "ReferenceGrant"}, meta.RESTScopeNamespace)
	if err := st.WatchProfiles(ctx, inf, mapper, nil, schema.GroupKind{}); err != nil {
		b.Fatal(err)
	}
	inf.Add(b, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "example"}, Spec: gwv1.GatewayClassSpec{ControllerName: engine.ControllerName}})
	for i := range w.Input.Gateways {
		inf.Add(b, &w.Input.Gateways[i])
	}
	for i := range w.Input.HTTPRoutes {
		inf.Add(b, &w.Input.HTTPRoutes[i])
	}
	pols := gen.EnvoyGateway(w)
	for _, u := range pols {
		inf.Add(b, u)
	}
	s := settings.Defaults()
	r := profile.Request{Settings: s, Registry: policy.NewRegistry(kinds...), Source: st}
	if err := profile.Listed(st, Name, r.Registry, reads...); err != nil {
		b.Fatal(err)
	}
	if wd := (Profile{}).world(st, r.Registry); len(wd.snap.Items(engine.SecurityPolicy)) == 0 {
		b.Fatal("no effective SecurityPolicy in the world")
	}
	return st, inf, r, pols, w
}

// BenchmarkReview is the profile's review of a policy write (what the validating webhook pays per
// admission, decoding aside): an update of a Gateway-level and of a route-level SecurityPolicy and
// BackendTrafficPolicy, at 1,000 and 10,000 routes.
func BenchmarkReview(b *testing.B) {
	for _, sz := range benchSizes {
		_, _, r, pols := benchWorld(b, sz)
		for _, c := range []struct {
			name string
			u    *unstructured.Unstructured
		}{{"gateway", pols[0]}, {"gateway", pols[1]}, {"route", pols[len(pols)-2]}, {"route", pols[len(pols)-1]}} {
			spec := c.u.Object["spec"].(map[string]interface{})
			target := spec["targetRefs"].([]interface{})[0].(map[string]interface{})
			req := r
			req.Object = gen.EnvoyGatewayPolicy(c.u.GetKind(), c.u.GetNamespace(), c.u.GetName(), target["kind"].(string), target["name"].(string), 1)
			req.Object.SetCreationTimestamp(c.u.GetCreationTimestamp())
			req.GroupKind = req.Object.GroupVersionKind().GroupKind()
			if d := (Profile{}).Review(req); len(d.Errs) > 0 || d.Unavailable != nil || d.Internal != nil {
				b.Fatalf("%s %s: %v %v %v", c.u.GetKind(), c.name, d.Errs, d.Unavailable, d.Internal)
			}
			b.Run(fmt.Sprintf("%s/%s/routes=%d", c.u.GetKind(), c.name, sz.Routes), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					(Profile{}).Review(req)
				}
			})
		}
	}
}

// BenchmarkApplyChange is the CPU of applying one event to a built State through its informer event
// handler (as internal/state's BenchmarkApplyChange for the engine's kinds): the graph and the
// Envoy Gateway snapshot stepped and published with the event, then read by a request. Policy events
// edit route-level and Gateway-level SecurityPolicies and BackendTrafficPolicies in turn; a route
// event moves an HTTPRoute between its Gateway's listeners; a Gateway event changes a Gateway's https
// listener's hostname (its listeners and the routes through it are redone). At 1,000 and 10,000
// routes: the cost must stay flat.
func BenchmarkApplyChange(b *testing.B) {
	for _, sz := range benchSizes {
		st, inf, r, pols, w := benchWorldOf(b, sz)
		for _, change := range []string{"policy=gateway", "policy=route", "route", "gateway"} {
			b.Run(fmt.Sprintf("routes=%d/%s", sz.Routes, change), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					switch change {
					case "route":
						benchRouteEvent(b, inf, w, i)
					case "gateway":
						benchGatewayEvent(b, inf, w, i)
					default:
						benchPolicyEvent(b, inf, pols, change == "policy=route", min(sz.Policies/10, sz.Gateways), i)
					}
					(Profile{}).world(st, r.Registry)
				}
			})
		}
	}
}

// benchPolicyEvent edits one of the policies, Gateway-level or route-level (the first 2*gwPolicies
// are Gateway-level).
func benchPolicyEvent(b *testing.B, inf *statetest.Informers, pols []*unstructured.Unstructured, route bool, gwPolicies, i int) {
	from, n := 0, 2*gwPolicies
	if route {
		from, n = 2*gwPolicies, len(pols)-2*gwPolicies
	}
	j := from + (i*7919)%n
	old := pols[j]
	target := old.Object["spec"].(map[string]interface{})["targetRefs"].([]interface{})[0].(map[string]interface{})
	next := gen.EnvoyGatewayPolicy(old.GetKind(), old.GetNamespace(), old.GetName(), target["kind"].(string), target["name"].(string), 1+i%50)
	next.SetCreationTimestamp(old.GetCreationTimestamp())
	inf.Update(b, old, next)
	pols[j] = next
}

// benchRouteEvent moves an HTTPRoute between the http and https listeners of its Gateway.
func benchRouteEvent(b *testing.B, inf *statetest.Informers, w gen.World, i int) {
	j := (i * 7919) % len(w.Input.HTTPRoutes)
	old := &w.Input.HTTPRoutes[j]
	next := old.DeepCopy()
	next.Generation = old.Generation + 1
	s := gwv1.SectionName("https")
	if p := next.Spec.ParentRefs[0].SectionName; p != nil && *p == s {
		s = "http"
	}
	next.Spec.ParentRefs[0].SectionName = &s
	inf.Update(b, old, next)
	w.Input.HTTPRoutes[j] = *next
}

// benchGatewayEvent changes the hostname of a Gateway's https listener.
func benchGatewayEvent(b *testing.B, inf *statetest.Informers, w gen.World, i int) {
	j := (i * 7919) % len(w.Input.Gateways)
	old := &w.Input.Gateways[j]
	next := old.DeepCopy()
	next.Generation = old.Generation + 1
	h := gwv1.Hostname(fmt.Sprintf("h%d.example.com", i))
	next.Spec.Listeners[1].Hostname = &h
	inf.Update(b, old, next)
	w.Input.Gateways[j] = *next
}

// BenchmarkReviewAfterEvent is the review of a route-level SecurityPolicy write (ns/op) right after
// one event the world reads besides policies and the Gateway API objects: a Namespace's labels
// changed (namespace), a ReferenceGrant created or changed (referencegrant), or none (the steady
// write); what the event costs the informer's handler is event-ns/op. At 1,000 and 10,000 routes.
// The world follows both events in the handler (world.next), so the review after one builds nothing.
func BenchmarkReviewAfterEvent(b *testing.B) {
	for _, sz := range benchSizes {
		_, inf, r, pols := benchWorld(b, sz)
		u := pols[len(pols)-2]
		target := u.Object["spec"].(map[string]interface{})["targetRefs"].([]interface{})[0].(map[string]interface{})
		req := r
		req.Object = gen.EnvoyGatewayPolicy(u.GetKind(), u.GetNamespace(), u.GetName(), target["kind"].(string), target["name"].(string), 1)
		req.Object.SetCreationTimestamp(u.GetCreationTimestamp())
		req.GroupKind = req.Object.GroupVersionKind().GroupKind()
		namespaces, grants := map[string]client.Object{}, map[string]client.Object{}
		for _, change := range []string{"none", "namespace", "referencegrant"} {
			b.Run(fmt.Sprintf("routes=%d/event=%s", sz.Routes, change), func(b *testing.B) {
				b.ReportAllocs()
				var applying time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					start := time.Now()
					switch change {
					case "namespace":
						benchNamespaceEvent(b, inf, namespaces, i)
					case "referencegrant":
						benchGrantEvent(b, inf, grants, i)
					}
					applying += time.Since(start)
					b.StartTimer()
					if d := (Profile{}).Review(req); len(d.Errs) > 0 {
						b.Fatal(d.Errs)
					}
				}
				b.ReportMetric(float64(applying.Nanoseconds())/float64(b.N), "event-ns/op")
			})
		}
	}
}

// benchNamespaceEvent adds or relabels one of gen's route namespaces (held in have).
func benchNamespaceEvent(b *testing.B, inf *statetest.Informers, have map[string]client.Object, i int) {
	ns := gen.RouteNamespace(i * 7919)
	m := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"team": fmt.Sprint(i % 3)}}}
	deliverBench(b, inf, have, ns, m)
}

// benchGrantEvent adds or changes a ReferenceGrant in one of gen's route namespaces (held in have),
// letting SecurityPolicies of infra reach its HTTPRoutes, all or one.
func benchGrantEvent(b *testing.B, inf *statetest.Informers, have map[string]client.Object, i int) {
	ns := gen.RouteNamespace(i * 7919)
	to := map[string]interface{}{"group": gwv1.GroupName, "kind": "HTTPRoute"}
	if i%2 == 1 {
		to["name"] = fmt.Sprintf("route-%d", i)
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": gwv1.GroupName + "/v1beta1", "kind": "ReferenceGrant",
		"metadata": map[string]interface{}{"namespace": ns, "name": "from-infra", "generation": int64(i + 1)},
		"spec": map[string]interface{}{
			"from": []interface{}{map[string]interface{}{"group": engine.Group, "kind": engine.SecurityPolicy, "namespace": "infra"}},
			"to":   []interface{}{to}}}}
	deliverBench(b, inf, have, ns, u)
}

// deliverBench adds o, or updates the object under key in have to it.
func deliverBench(b *testing.B, inf *statetest.Informers, have map[string]client.Object, key string, o client.Object) {
	if old, ok := have[key]; ok {
		inf.Update(b, old, o)
	} else {
		inf.Add(b, o)
	}
	have[key] = o
}
