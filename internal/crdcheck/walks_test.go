package crdcheck

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestWalksAsWhole: the embedded objects' metadata and the list types, validated through the
// fields that may hold them, give the errors the API server's walks of the whole object give:
// embedded objects and lists of sets and maps at several depths, beside fields that hold neither.
func TestWalksAsWhole(t *testing.T) {
	crd := object(t, `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
              tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}
              nested:
                type: object
                properties:
                  deep: {type: array, items: {type: object, properties: {ids: {type: array, x-kubernetes-list-type: set, items: {type: integer}}}}}
              plain: {type: array, items: {type: string}}
          other: {type: object, properties: {names: {type: array, items: {type: string}}}}
          status: {type: object, properties: {objects: {type: array, items: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}}
`)
	c, err := New([]*unstructured.Unstructured{crd})
	if err != nil {
		t.Fatal(err)
	}
	v := c.kinds[schema.GroupKind{Group: "example.com", Kind: "Widget"}].versions["v1"]
	if len(v.embedded) != 2 || len(v.listed) != 1 {
		t.Fatalf("fields to walk: embedded %v, listed %v; want spec and status, spec", v.embedded, v.listed)
	}
	for i, doc := range []string{
		`{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {plain: [a, a]}, other: {names: [x, x]}}`,
		`{apiVersion: example.com/v1, kind: Widget, metadata: {name: w},
  spec: {template: {kind: Pod, metadata: {name: Bad_Name}}, tags: [a, b, a], ports: [{name: http, port: 80}, {name: http, port: 81}],
    nested: {deep: [{ids: [1, 1]}, {ids: [2]}]}, plain: [a, a]},
  other: {names: [x, x]},
  status: {objects: [{apiVersion: v1, kind: ""}, {apiVersion: v1, kind: Pod}]}}`,
		`{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}`,
	} {
		obj := integers(object(t, doc).Object).(map[string]interface{})
		want := messages(append(schemaobjectmeta.Validate(context.Background(), nil, obj, v.structural, false), listtype.ValidateListSetsAndMaps(nil, v.structural, obj)...))
		got := messages(v.walks(context.Background(), obj))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("object %d: errors (-whole object +fields that may hold them):\n%s", i, diff)
		}
		if i == 1 && len(want) < 5 {
			t.Errorf("object %d: %d errors: the case tests less than it says\n%v", i, len(want), want)
		}
	}
}
