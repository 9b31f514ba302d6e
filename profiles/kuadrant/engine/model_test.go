package engine_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
)

func TestStatusMode(t *testing.T) {
	gvk := func(group, kind string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: group, Version: "v1alpha1", Kind: kind}
	}
	tests := []struct {
		name string
		kind policy.Kind
		want string
	}{
		{name: "kuadrant profile defaults to none", kind: policy.Kind{GVK: gvk("kuadrant.io", "AuthPolicy"), Profile: policy.ProfileKuadrant}, want: policy.StatusNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.kind.StatusMode(); got != tt.want {
				t.Errorf("StatusMode() = %q, want %q", got, tt.want)
			}
		})
	}
}
