package main

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/settings"
)

// storedPolicy is an AuthPolicy as the API server keeps it: with metadata, status and the schema's
// default strategy.
const storedPolicy = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata:
  name: p
  namespace: shop
  uid: "1234"
  resourceVersion: "7"
  creationTimestamp: "2026-01-02T03:04:05Z"
  labels: {team: cart}
  annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  defaults:
    strategy: atomic
    rules:
      authorization:
        a: {opa: {rego: allow = true}}
        b: {opa: {rego: allow = true}}
status:
  conditions: [{type: Accepted, status: "True"}]`

// filePolicy is that AuthPolicy as a file holds it, with metadata meta and the rules' lines.
func filePolicy(meta string, rules ...string) string {
	return `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: shop` + meta + `}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  defaults:
    rules:
      authorization:
        ` + strings.Join(rules, "\n        ")
}

const storedRoute = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop, uid: "99"}
spec:
  parentRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]`

// fileRoute is the route as a file holds it, with the given spec.
func fileRoute(spec string) string {
	return `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec: ` + spec
}

func TestAsStored(t *testing.T) {
	a, b := "a: {opa: {rego: allow = true}}", "b: {opa: {rego: allow = true}}"
	cases := []struct {
		name         string
		stored, file string
		want         bool
	}{
		{name: "same spec without the defaults and metadata the API server adds", stored: storedPolicy, file: filePolicy("", a, b), want: true},
		{name: "a changed rule is a change", stored: storedPolicy, file: filePolicy("", "a: {opa: {rego: allow = false}}", b)},
		{name: "a removed rule is a change although the file is within the stored object", stored: storedPolicy, file: filePolicy("", a)},
		{name: "a new label value is a change", stored: storedPolicy, file: filePolicy(", labels: {team: shop}", a, b)},
		{name: "a route without the defaults its schema adds", stored: storedRoute, file: fileRoute("{parentRefs: [{name: gw}], rules: [{}]}"), want: true},
		{name: "a route with another rule count", stored: storedRoute, file: fileRoute("{parentRefs: [{name: gw}], rules: [{}, {}]}")},
		{name: "a route with another parent", stored: storedRoute, file: fileRoute("{parentRefs: [{name: other}]}")},
	}
	reg := settings.Defaults().Registry()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, f := decodeOne(t, tc.stored), decodeOne(t, tc.file)
			f.SetCreationTimestamp(s.GetCreationTimestamp()) // as applyFiles does
			if got := asStored(s, f, reg); got != tc.want {
				t.Errorf("asStored = %v, want %v", got, tc.want)
			}
		})
	}
}

// decodeOne is the one object of doc.
func decodeOne(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	objs, err := manifest.Decode("test.yaml", []byte(doc))
	if err != nil || len(objs) != 1 {
		t.Fatalf("decoding: %v (%d objects)", err, len(objs))
	}
	return objs[0].Unstructured
}
