package state

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestSameSpec: an update counts as unchanged only when both the generation (the spec) and the
// labels stayed; a relabel selects differently (a Kuma MeshService by labels), so it is an event.
func TestSameSpec(t *testing.T) {
	obj := func(gen int64, labels map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]interface{}{}}
		u.SetGeneration(gen)
		u.SetLabels(labels)
		return u
	}
	tests := []struct {
		name     string
		old, new *unstructured.Unstructured
		want     bool
	}{
		{"a status write: same generation, same labels", obj(1, map[string]string{"team": "a"}), obj(1, map[string]string{"team": "a"}), true},
		{"a spec change", obj(1, nil), obj(2, nil), false},
		{"a relabel", obj(1, map[string]string{"team": "a"}), obj(1, map[string]string{"team": "b"}), false},
		{"a label added", obj(1, nil), obj(1, map[string]string{"team": "a"}), false},
		{"no generation (a Namespace)", obj(0, nil), obj(0, nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameSpec(tt.old, tt.new); got != tt.want {
				t.Errorf("sameSpec = %t, want %t", got, tt.want)
			}
		})
	}
}
