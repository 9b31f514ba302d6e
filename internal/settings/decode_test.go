package settings

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
)

func TestDecode(t *testing.T) {
	withUnsetOff := Defaults()
	withUnsetOff.UnsetEnabled = false
	withKind := Defaults()
	withKind.Kinds = []policy.Kind{{
		GVK:         schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "AuthPolicy"},
		Profile:     policy.ProfileDefaultsOverrides,
		RulesField:  "rules",
		TargetKinds: policy.DefaultTargetKinds,
	}}
	withKuma := Defaults()
	withKuma.Kinds = []policy.Kind{{
		GVK:         schema.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"},
		Profile:     policy.ProfileName("mesh"),
		TargetKinds: policy.DefaultTargetKinds,
	}}
	kuma := func(kind string) map[string]interface{} {
		return map[string]interface{}{"gvk": map[string]interface{}{"group": "kuma.io", "version": "v1alpha1", "kind": kind}, "profile": "mesh"}
	}
	kuadrant := map[string]interface{}{"gvk": map[string]interface{}{"group": "kuadrant.io", "version": "v1", "kind": "AuthPolicy"}, "profile": "defaults-overrides", "rulesField": "rules"}
	tests := []struct {
		name     string
		obj      map[string]interface{}
		want     Settings
		wantErrs []string
	}{
		{name: "no spec is the defaults", obj: map[string]interface{}{}, want: Defaults()},
		{name: "unset switched off", obj: map[string]interface{}{"spec": map[string]interface{}{"unsetEnabled": false}}, want: withUnsetOff},
		{name: "configured kind gets default targets", obj: map[string]interface{}{"spec": map[string]interface{}{"kinds": []interface{}{kuadrant}}}, want: withKind},
		{
			name:     "duplicate kind rejected",
			obj:      map[string]interface{}{"spec": map[string]interface{}{"kinds": []interface{}{kuadrant, kuadrant}}},
			wantErrs: []string{`spec.kinds[1].gvk: Duplicate value: "AuthPolicy.kuadrant.io"`},
		},
		{name: "Kuma's MeshTimeout in one line", obj: map[string]interface{}{"spec": map[string]interface{}{"kinds": []interface{}{kuma("MeshTimeout")}}}, want: withKuma},
		{
			name:     "mesh profile for a kind it cannot read",
			obj:      map[string]interface{}{"spec": map[string]interface{}{"kinds": []interface{}{kuma("MeshRetry")}}},
			wantErrs: []string{`spec.kinds[0].gvk.kind: Unsupported value: "MeshRetry": supported values: "MeshTimeout", "MeshTrafficPermission"`},
		},
		{
			name:     "warning limit out of range",
			obj:      map[string]interface{}{"spec": map[string]interface{}{"warningLimit": int64(0)}},
			wantErrs: []string{"spec.warningLimit: Invalid value: 0: must be between 1 and 100"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tt.obj}
			u.SetName(Name)
			got, errs := Decode(u)
			var gotErrs []string
			for _, e := range errs {
				gotErrs = append(gotErrs, e.Error())
			}
			if diff := cmp.Diff(tt.wantErrs, gotErrs); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(tt.wantErrs) == 0 {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("settings (-want +got):\n%s", diff)
				}
			}
		})
	}
}
