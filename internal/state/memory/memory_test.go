package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state/memory"
)

const input = `
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: shop}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
---
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  rules: {authorization: {a: {opa: {rego: allow = true}}}}
---
apiVersion: agentic.prototype.x-k8s.io/v0alpha0
kind: XBackend
metadata: {name: payments, namespace: shop}
`

func objects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(input, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// TestSource: the state fed from memory holds the input as the informers would deliver it, and
// Remove and Add change it as a delete and a create would.
func TestSource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs := objects(t)
	reg := settings.Defaults().Registry()
	backend := schema.GroupKind{Group: "agentic.prototype.x-k8s.io", Kind: "XBackend"}
	src, err := memory.New(ctx, objs, memory.Options{Kinds: reg.Kinds(), Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	if !src.Synced() {
		t.Fatal("the state is not synced")
	}
	auth := schema.GroupKind{Group: policy.Group, Kind: "AuthPolicy"}
	type seen struct {
		Gateway, Backend, BackendKnown bool
		Policies                       int
		Routes                         int
		NamespaceLabels                map[string]string
	}
	look := func() seen {
		gws, routes, ns := src.HTTPTopology()
		exists, known := src.BackendExists(backend, types.NamespacedName{Namespace: "shop", Name: "payments"})
		return seen{Gateway: len(gws) == 1 && src.GatewayExists(types.NamespacedName{Namespace: "shop", Name: "gw"}),
			Backend: exists, BackendKnown: known, Policies: len(src.Objects(auth)), Routes: len(routes), NamespaceLabels: ns["shop"]}
	}
	want := seen{Gateway: true, Backend: true, BackendKnown: true, Policies: 1, Routes: 1, NamespaceLabels: map[string]string{"team": "shop"}}
	if diff := cmp.Diff(want, look()); diff != "" {
		t.Fatalf("after New (-want +got):\n%s", diff)
	}
	for _, u := range objs[1:] {
		if err := src.Remove(u); err != nil {
			t.Fatal(err)
		}
	}
	gone := seen{BackendKnown: true, NamespaceLabels: map[string]string{"team": "shop"}}
	if diff := cmp.Diff(gone, look()); diff != "" {
		t.Errorf("after Remove (-want +got):\n%s", diff)
	}
	for _, u := range objs[1:] {
		if err := src.Add(u); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, look()); diff != "" {
		t.Errorf("after Add (-want +got):\n%s", diff)
	}
}

// TestSourceRefusesWhatDoesNotConvert: a Gateway API object that does not convert to its type is
// an error, not a panic.
func TestSourceRefusesWhatDoesNotConvert(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]interface{}{"name": "gw", "namespace": "shop"},
		"spec":     map[string]interface{}{"listeners": "not a list"},
	}}
	if _, err := memory.New(context.Background(), []*unstructured.Unstructured{u}, memory.Options{}); err == nil {
		t.Error("New took a Gateway whose listeners are not a list")
	}
}

// TestTry: a trial shows f the state its write leaves (a create, an update, a delete), then puts the
// state back as it was: the same objects, and the same snapshot, taken up again rather than built
// anew.
func TestTry(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs := objects(t)
	reg := settings.Defaults().Registry()
	src, err := memory.New(ctx, objs, memory.Options{Kinds: reg.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	auth := schema.GroupKind{Group: policy.Group, Kind: "AuthPolicy"}
	k, _ := reg.Lookup(auth)
	cond, err := src.Evaluator(1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	pol := objs[3]
	other := pol.DeepCopy()
	other.SetName("route-policy")
	unstructured.SetNestedField(other.Object, "HTTPRoute", "spec", "targetRef", "kind")
	unstructured.SetNestedField(other.Object, "cart", "spec", "targetRef", "name")
	changed := pol.DeepCopy()
	changed.SetLabels(map[string]string{"v": "2"})
	type seen struct {
		Names    []string
		Policies int
		Routes   int
	}
	look := func() seen {
		var s seen
		for _, u := range src.Objects(auth) {
			s.Names = append(s.Names, u.GetName()+" "+u.GetLabels()["v"])
		}
		s.Policies = len(src.Snapshot(k, cond).Policies())
		_, routes, _ := src.HTTPTopology()
		s.Routes = len(routes)
		return s
	}
	snap := src.Snapshot(k, cond)
	for _, c := range []struct {
		name    string
		out, in *unstructured.Unstructured
		during  seen
		takenUp bool // the snapshot of before the trial serves again
	}{
		{"create reviewed without the policy", pol, nil, seen{Routes: 1}, true},
		{"update reviewed with the stored version", pol, changed, seen{Names: []string{"gw-policy 2"}, Policies: 1, Routes: 1}, true},
		{"delete reviewed with the deleted policy", nil, other, seen{Names: []string{"gw-policy ", "route-policy "}, Policies: 2, Routes: 1}, true},
		{"a route (put back by its own create)", objs[2], nil, seen{Names: []string{"gw-policy "}, Policies: 1}, false},
	} {
		var during seen
		if err := src.Try([]memory.Change{{Out: c.out, In: c.in}}, func() { during = look() }); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.during, during, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Errorf("%s: during the trial (-want +got):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(seen{Names: []string{"gw-policy "}, Policies: 1, Routes: 1}, look()); diff != "" {
			t.Errorf("%s: after the trial (-want +got):\n%s", c.name, diff)
		}
		if got := src.Snapshot(k, cond); c.takenUp && got != snap {
			t.Errorf("%s: after the trial the snapshot was built anew, not taken up again", c.name)
		}
	}
}

// TestSourceTakesConverted: an object the caller converted is the one the state holds (with the
// version the state watches, as New's own conversion sets it); one of another type than its
// kind's is an error, not converted again (the caller may have released the fields it converted).
func TestSourceTakesConverted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs := objects(t)
	gw := &gwv1.Gateway{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[1].Object, gw); err != nil {
		t.Fatal(err)
	}
	reg := settings.Defaults().Registry()
	src, err := memory.New(ctx, objs, memory.Options{Kinds: reg.Kinds(), Converted: map[*unstructured.Unstructured]runtime.Object{objs[1]: gw}})
	if err != nil {
		t.Fatal(err)
	}
	gws, routes, _ := src.HTTPTopology()
	if len(gws) != 1 || gws[0] != gw {
		t.Errorf("gateways = %v, want the one converted by the caller", gws)
	}
	if want := gwv1.SchemeGroupVersion.WithKind("Gateway"); gw.GroupVersionKind() != want {
		t.Errorf("converted gateway's kind = %v, want %v", gw.GroupVersionKind(), want)
	}
	if len(routes) != 1 || routes[0].Name != "cart" || len(routes[0].Spec.ParentRefs) != 1 {
		t.Errorf("routes = %v, want cart converted by the source", routes)
	}
	_, err = memory.New(ctx, objs, memory.Options{Kinds: reg.Kinds(), Converted: map[*unstructured.Unstructured]runtime.Object{objs[2]: &gwv1.Gateway{}}})
	if want := "HTTPRoute shop/cart: the converted object is a *v1.Gateway, not the scheme's type of its kind"; err == nil || err.Error() != want {
		t.Errorf("a route converted to a Gateway: err = %v, want %q", err, want)
	}
}

// TestSourceTakesTyped: objects given typed only are in the state as the same objects given
// decoded would be, delivered as the caller converted them; a typed object of another kind's type
// is an error.
func TestSourceTakesTyped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objs := objects(t)
	gw, route := &gwv1.Gateway{}, &gwv1.HTTPRoute{}
	for i, into := range []runtime.Object{gw, route} {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[1+i].Object, into); err != nil {
			t.Fatal(err)
		}
	}
	typed := []memory.Typed{{GVK: objs[1].GroupVersionKind(), Object: gw}, {GVK: objs[2].GroupVersionKind(), Object: route}}
	rest := append([]*unstructured.Unstructured{objs[0]}, objs[3:]...)
	reg := settings.Defaults().Registry()
	src, err := memory.New(ctx, rest, memory.Options{Kinds: reg.Kinds(), Typed: typed})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := memory.New(ctx, objects(t), memory.Options{Kinds: reg.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	gws, routes, ns := src.HTTPTopology()
	if len(gws) != 1 || gws[0] != gw || len(routes) != 1 || routes[0] != route {
		t.Errorf("topology = %v, %v, want the Gateway and route given typed", gws, routes)
	}
	wgws, wroutes, wns := whole.HTTPTopology()
	if diff := cmp.Diff([]any{wgws, wroutes, wns}, []any{gws, routes, ns}, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("topology given typed against given decoded (-decoded +typed):\n%s", diff)
	}
	if !src.GatewayExists(types.NamespacedName{Namespace: "shop", Name: "gw"}) {
		t.Error("the Gateway given typed does not exist in the state")
	}
	_, err = memory.New(ctx, rest, memory.Options{Kinds: reg.Kinds(), Typed: []memory.Typed{{GVK: objs[2].GroupVersionKind(), Object: &gwv1.Gateway{}}}})
	if err == nil || !strings.Contains(err.Error(), "HTTPRoute: the typed object is a *v1.Gateway") {
		t.Errorf("a route given as a Gateway: err = %v, want the typed object's type named", err)
	}
}
