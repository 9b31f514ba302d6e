package crdcheck

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/manifest"
)

// checker builds a Checker from CRD files of the repository.
func checker(t *testing.T, files ...string) *Checker {
	t.Helper()
	objs, err := manifest.Read(files...)
	if err != nil {
		t.Fatal(err)
	}
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if IsCRD(o.Unstructured) {
			crds = append(crds, o.Unstructured)
		}
	}
	c, err := New(crds)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// checkCase is an object (YAML) and the errors Check gives it.
type checkCase struct {
	name string
	doc  string
	want []string
}

func checkCases(t *testing.T, c *Checker, cases []checkCase) {
	// CheckAll, checking objects at once, gives each the errors Check gives it alone.
	var objs []*unstructured.Unstructured
	for range 100 {
		for _, tc := range cases {
			objs = append(objs, object(t, tc.doc))
		}
	}
	for i, errs := range c.CheckAll(context.Background(), objs) {
		tc := cases[i%len(cases)]
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("CheckAll: %s: errors (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range c.Check(context.Background(), object(t, tc.doc)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckKuadrantCRDs(t *testing.T) {
	c := checker(t, filepath.Join("..", "..", "test", "crds", "kuadrant"))
	checkCases(t, c, []checkCase{
		{
			name: "bare limits with defaults is rejected with the CRD's message",
			doc: `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits: {a: {rates: [{limit: 5, window: 10s}]}}
  defaults: {limits: {b: {rates: [{limit: 5, window: 10s}]}}}`,
			want: []string{`spec: Invalid value: Implicit and explicit defaults are mutually exclusive`},
		},
		{
			name: "target group outside Gateway API is rejected",
			doc: `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: example.com, kind: HTTPRoute, name: cart}
  limits: {a: {rates: [{limit: 5, window: 10s}]}}`,
			want: []string{`spec.targetRef: Invalid value: targetRef.group must be gateway.networking.k8s.io`},
		},
		{
			name: "schema errors come first and block the CEL rules",
			doc: `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  defaults: {strategy: sometimes, limits: {b: {rates: [{limit: 5, window: 10s}]}}}`,
			want: []string{
				`spec.defaults.strategy: Unsupported value: "sometimes": supported values: "atomic", "merge"`,
				`(root): Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
			},
		},
		{
			name: "unknown fields are reported",
			doc: `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits: {a: {rates: [{limit: 5, window: 10s, burst: 3}]}}`,
			want: []string{`spec.limits.a.rates[0].burst: Forbidden: unknown field "spec.limits.a.rates[0].burst"`},
		},
		{
			name: "a version the CRD does not serve is unsupported",
			doc: `
apiVersion: kuadrant.io/v2
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec: {}`,
			want: []string{`apiVersion: Unsupported value: "kuadrant.io/v2": supported values: "kuadrant.io/v1"`},
		},
		{
			name: "a valid policy passes",
			doc: `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {limits: {b: {rates: [{limit: 5, window: 10s}]}}}`,
		},
	})
}

func TestCheckShippedCRDs(t *testing.T) {
	c := checker(t, filepath.Join("..", "..", "config", "crd"))
	checkCases(t, c, []checkCase{
		{
			name: "whole numbers from YAML are integers to Gateway API's CEL rules",
			doc: `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: other, port: 8080, protocol: HTTP}`,
		},
		{
			name: "Gateway API's own rules apply",
			doc: `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: again, port: 80, protocol: HTTP}`,
			want: []string{`spec.listeners: Invalid value: Combination of port, protocol and hostname must be unique for each listener`},
		},
		{
			name: "bare limits with overrides is rejected with our CRD's message and path",
			doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits: {a: {rates: [{limit: 5, window: 10s}]}}
  overrides: {limits: {b: {rates: [{limit: 5, window: 10s}]}}}`,
			want: []string{`spec.limits: Forbidden: bare limits cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults`},
		},
		{
			name: "a valid policy passes",
			doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  limits: {a: {rates: [{limit: 5, window: 10s}]}}`,
		},
		{
			name: "nulls in fields that are not nullable are dropped, as the API server drops them",
			doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart, sectionName: null}
  limits: {a: {rates: [{limit: 5, window: 10s}], counters: null}}`,
		},
	})
}

func TestCheckAppliesSchemaDefaults(t *testing.T) {
	c := checker(t, filepath.Join("..", "..", "test", "crds", "kuadrant"))
	u := object(t, `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {limits: {b: {rates: [{limit: 5, window: 10s}]}}}`)
	if errs := c.Check(context.Background(), u); len(errs) > 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	got, _, _ := unstructured.NestedString(u.Object, "spec", "defaults", "strategy")
	if got != "atomic" {
		t.Errorf("spec.defaults.strategy = %q, want the schema default atomic", got)
	}
}

func TestNewRejectsUnreadableCRD(t *testing.T) {
	u := object(t, `
apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata: {name: things.example.com}`)
	_, err := New([]*unstructured.Unstructured{u})
	want := "CustomResourceDefinition things.example.com: apiVersion apiextensions.k8s.io/v1beta1 is not supported: want apiextensions.k8s.io/v1"
	if err == nil || err.Error() != want {
		t.Errorf("New() error = %v, want %s", err, want)
	}
}
