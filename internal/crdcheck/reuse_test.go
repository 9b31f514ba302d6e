package crdcheck

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"
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
			upstream := apiservervalidation.NewSchemaValidatorFromOpenAPI(v.schema.schema)
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

// TestReusedResultAsKubeOpenAPI: the reused validator, lean objects included, gives each value the
// errors and the match count (which anyOf and oneOf rank failures by) kube-openapi's validator
// built anew gives it, on a schema with required fields at several depths, lists of objects, maps
// of free-form keys, nullable fields and logical junctors whose branches name the object's own
// properties with other constraints.
func TestReusedResultAsKubeOpenAPI(t *testing.T) {
	var s spec.Schema
	if err := yaml.Unmarshal([]byte(`
type: object
required: [spec]
properties:
  apiVersion: {type: string}
  metadata: {type: object}
  spec:
    type: object
    required: [name]
    properties:
      name: {type: string, maxLength: 5}
      opt: {type: string, nullable: true, minLength: 2}
      list:
        type: array
        maxItems: 3
        items:
          type: object
          required: [k]
          properties:
            k: {type: string, enum: [x, "y"]}
            n: {type: number, maximum: 10}
            nested: {type: object, required: [deep], properties: {deep: {type: boolean}}}
      labels: {type: object, maxProperties: 2, additionalProperties: {type: string, pattern: "^[a-z]+$"}}
      choice:
        type: object
        anyOf:
        - required: [a]
        - required: [b]
          properties: {b: {type: string, minLength: 3}}
        properties:
          a: {type: integer, minimum: 1}
          b: {type: string}
          c: {type: object, oneOf: [{required: [x]}, {required: ["y"]}], properties: {x: {type: string}, "y": {type: string, maxLength: 1}}}
`), &s); err != nil {
		t.Fatal(err)
	}
	values := []string{
		`{spec: {name: ok}}`,
		`{spec: {name: toolong, opt: null, list: [{k: x, n: 3, nested: {deep: true}}, {k: z, n: 11}, {n: 1, nested: {}}, {k: "y"}], labels: {a: b, c: D, e: f}}}`,
		`{spec: {name: ok, opt: a, choice: {b: ab}}}`,
		`{spec: {name: ok, choice: {b: abc, c: {x: a, "y": bb}}}}`,
		`{spec: {name: ok, choice: {a: 0, c: {}}}}`,
		`{spec: {name: 3, list: {k: x}, labels: [a]}}`,
		`{spec: null}`,
		`{apiVersion: v1}`,
		`{spec: {name: ok, choice: {b: abc}}}`,
	}
	reused := newReused(&s)
	for round := range 2 {
		for i, doc := range values {
			var v map[string]interface{}
			if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
				t.Fatal(err)
			}
			v = integers(v).(map[string]interface{})
			want := validate.NewSchemaValidator(&s, nil, "", strfmt.Default).Validate(v)
			got := reused.Validate(v)
			if diff := cmp.Diff(result(want), result(got)); diff != "" {
				t.Errorf("round %d, value %d: result (-kube-openapi +reused):\n%s", round, i, diff)
			}
			if round == 0 && i == 1 && len(want.Errors) < 8 {
				t.Errorf("value %d: %d errors: the case tests less than it says", i, len(want.Errors))
			}
		}
	}
}

// result is what a validation result says: its errors, sorted, and its match count.
func result(r *validate.Result) []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return append(out, fmt.Sprintf("match count %d", r.MatchCount))
}
