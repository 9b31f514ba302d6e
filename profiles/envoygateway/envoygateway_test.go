package envoygateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
)

func kind(name string, defaults map[string]string) policy.Kind {
	return policy.Kind{GVK: schema.GroupVersionKind{Group: "gateway.envoyproxy.io", Version: "v1alpha1", Kind: name}, Profile: Name, Defaults: defaults}
}

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestDefaultMergeType: a kind line's `defaults: {mergeType: …}` (envoyproxy/gateway #9334) gives a
// route-targeted policy without mergeType the default, and nothing else.
func TestDefaultMergeType(t *testing.T) {
	strategic := map[string]string{"mergeType": "StrategicMerge"}
	route := `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]`
	gateway := `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: p, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: eg}]`
	set := `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: p, namespace: shop}
spec:
  mergeType: JSONMerge
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]`
	for _, tc := range []struct {
		name string
		kind policy.Kind
		doc  string
		want []jsonpatch.JsonPatchOperation
	}{
		{"route policy without mergeType gets the default", kind("SecurityPolicy", strategic), route,
			[]jsonpatch.JsonPatchOperation{{Operation: "add", Path: "/spec/mergeType", Value: "StrategicMerge"}}},
		{"no default configured: nothing", kind("SecurityPolicy", nil), route, nil},
		{"gateway target: mergeType is not allowed there, nothing", kind("SecurityPolicy", strategic), gateway, nil},
		{"mergeType set: kept", kind("SecurityPolicy", strategic), set, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := policy.NewRegistry(tc.kind)
			got := Profile{}.Default(tc.kind.GVK.GroupKind(), object(t, tc.doc), reg)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Default (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultsWebhook: the mutating webhook is registered only for the kinds whose line sets a
// default, never for ClientTrafficPolicy (it has no mergeType).
func TestDefaultsWebhook(t *testing.T) {
	strategic := map[string]string{"mergeType": "StrategicMerge"}
	w := Profile{}.Webhooks([]policy.Kind{kind("SecurityPolicy", strategic), kind("BackendTrafficPolicy", nil), kind("ClientTrafficPolicy", strategic)})
	if len(w.Mutating) != 1 {
		t.Fatalf("mutating webhooks %v, want one", w.Mutating)
	}
	var got []string
	for _, r := range w.Mutating[0].Resources {
		got = append(got, r.Resource)
	}
	if diff := cmp.Diff([]string{"securitypolicies"}, got); diff != "" {
		t.Errorf("defaulted resources (-want +got):\n%s", diff)
	}
	if w := (Profile{}).Webhooks([]policy.Kind{kind("SecurityPolicy", nil)}); len(w.Mutating) != 0 {
		t.Errorf("a mutating webhook without any default configured: %v", w.Mutating)
	}
}

// TestDefaultsChecked: a kind line may default only mergeType, to StrategicMerge or JSONMerge.
func TestDefaultsChecked(t *testing.T) {
	path := field.NewPath("spec", "kinds").Index(0)
	for _, tc := range []struct {
		name     string
		defaults map[string]string
		want     []string
	}{
		{"StrategicMerge", map[string]string{"mergeType": "StrategicMerge"}, nil},
		{"Replace is not a default", map[string]string{"mergeType": "Replace"},
			[]string{`spec.kinds[0].defaults[mergeType]: Unsupported value: "Replace": supported values: "JSONMerge", "StrategicMerge"`}},
		{"another field", map[string]string{"timeout": "1s"},
			[]string{`spec.kinds[0].defaults[timeout]: Unsupported value: "timeout": supported values: "mergeType"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range policy.CheckKind(kind("SecurityPolicy", tc.defaults), path) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
	// Other models default nothing.
	k := policy.Kind{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "AuthPolicy"}, Profile: policy.ProfileKuadrant, Defaults: map[string]string{"mergeType": "StrategicMerge"}}
	if errs := policy.CheckKind(k, path); len(errs) != 1 {
		t.Errorf("a kuadrant kind with defaults: errors %v, want one", errs)
	}
}
