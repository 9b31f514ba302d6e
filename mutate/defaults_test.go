package mutate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPatch(t *testing.T) {
	tests := []struct {
		name string
		spec map[string]interface{}
		want []jsonpatch.JsonPatchOperation
	}{
		{"defaults without strategy get atomic", map[string]interface{}{"defaults": map[string]interface{}{"rules": map[string]interface{}{}}},
			[]jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/defaults/strategy", Value: "atomic"}}},
		{"both blocks", map[string]interface{}{"defaults": map[string]interface{}{}, "overrides": map[string]interface{}{}},
			[]jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/defaults/strategy", Value: "atomic"}, {Operation: "add", Path: "/spec/overrides/strategy", Value: "atomic"}}},
		{"strategy present is left alone", map[string]interface{}{"overrides": map[string]interface{}{"strategy": "merge"}}, nil},
		{"bare rules need nothing", map[string]interface{}{"rules": map[string]interface{}{}}, nil},
		{"malformed block is left to validation", map[string]interface{}{"defaults": "oops"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]interface{}{"spec": tt.spec}}
			if diff := cmp.Diff(tt.want, Patch(obj)); diff != "" {
				t.Errorf("Patch (-want +got):\n%s", diff)
			}
			if err := Apply(obj, Patch(obj)); err != nil {
				t.Fatal(err)
			}
			if len(Patch(obj)) != 0 {
				t.Errorf("Apply left work for Patch: %v", obj.Object)
			}
		})
	}
}
