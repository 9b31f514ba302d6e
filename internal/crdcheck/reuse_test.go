package crdcheck

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestReusedAsAPIServer: the validator kept across objects gives each object the errors the API
// server's validator (built anew for each object) gives it, whatever was validated before: objects
// with maps of free-form keys, lists of several lengths, valid and invalid, each validated twice.
func TestReusedAsAPIServer(t *testing.T) {
	c := checker(t, filepath.Join("..", "..", "config", "crd"), filepath.Join("..", "..", "test", "crds", "kuadrant"))
	docs := []string{
		`
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  defaults: {limits: {a: {rates: [{limit: 5, window: 10s}, {limit: 50, window: 1m}]}, b: {rates: [{limit: 1, window: 1s}]}}}`,
		`
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: 7}
  defaults: {limits: {a: {rates: [{limit: -5, window: ten}, {limit: x}, {}]}, c: {rates: 3}}}
  overrides: {limits: {b: {rates: [{limit: 5, window: 10s}]}}}`,
		`
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  limits: {a: {rates: [{limit: 5, window: 10s}], when: [{predicate: "true"}, {}]}, b: {rates: [{limit: "5"}]}}`,
		`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}, {name: gw2, port: 99999}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /a}}, {path: {type: Nope, value: b}}]
    backendRefs: [{name: svc, port: 80}]
  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: y}, {name: "", value: 3}]}}]`,
		`
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: istio
  listeners: [{name: http, port: 80, protocol: HTTP}, {name: b, port: 0, protocol: HTTP, hostname: "*.example.com"}]`,
	}
	for round := range 2 {
		for i, doc := range docs {
			u := object(t, doc)
			u.Object = integers(u.Object).(map[string]interface{})
			gvk := u.GroupVersionKind()
			v := c.kinds[gvk.GroupKind()].versions[gvk.Version]
			upstream := apiservervalidation.NewSchemaValidatorFromOpenAPI(v.schema.root.Schema)
			want := messages(apiservervalidation.ValidateCustomResource(nil, u.Object, upstream))
			got := messages(apiservervalidation.ValidateCustomResource(nil, u.Object, v.schema))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round %d, object %d: errors (-API server's validator +reused):\n%s", round, i, diff)
			}
			if round == 0 && i == 1 && len(want) == 0 {
				t.Errorf("object %d: no errors: the case tests nothing", i)
			}
		}
	}
}

func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}
