package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
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
