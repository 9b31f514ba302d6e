package access

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestPatch(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want []jsonpatch.JsonPatchOperation
	}{
		{"service account without namespace", "rules: [{name: a, source: {type: ServiceAccount, serviceAccount: {name: agent}}}]",
			[]jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/rules/0/source/serviceAccount/namespace", Value: "shop"}}},
		{"namespace given", "rules: [{name: a, source: {type: ServiceAccount, serviceAccount: {name: agent, namespace: other}}}]", nil},
		{"SPIFFE source", "rules: [{name: a, source: {type: SPIFFE, spiffe: 'spiffe://td/x'}}]", nil},
		{"second rule only", "rules: [{name: a, source: {type: SPIFFE, spiffe: 'spiffe://td/x'}}, {name: b, source: {type: ServiceAccount, serviceAccount: {name: agent}}}]",
			[]jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/rules/1/source/serviceAccount/namespace", Value: "shop"}}},
		{"malformed rules are left to validation", "rules: [7, {source: 3}, {source: {serviceAccount: x}}]", nil},
		{"no rules", "targetRefs: []", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var spec map[string]interface{}
			if err := yaml.Unmarshal([]byte(tt.spec), &spec); err != nil {
				t.Fatal(err)
			}
			obj := &unstructured.Unstructured{Object: map[string]interface{}{"metadata": map[string]interface{}{"namespace": "shop"}, "spec": spec}}
			if diff := cmp.Diff(tt.want, Patch(obj)); diff != "" {
				t.Errorf("Patch (-want +got):\n%s", diff)
			}
		})
	}
}
