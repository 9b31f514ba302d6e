package webhook_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/test/gen"
)

// rejections reads precedent_admission_rejections_total by its check label.
func rejections(t *testing.T) map[string]float64 {
	t.Helper()
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "precedent_admission_rejections_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "check" {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// TestRejectionsByCheckID: a rejection by a stateless check counts under the check's ID; one found
// reading the policy, under its error type and path.
func TestRejectionsByCheckID(t *testing.T) {
	v, _ := newValidator(t, gen.Generate(gen.Size{Gateways: 1, Routes: 2, Policies: 1}))
	send := func(spec string) {
		raw := []byte(`{"apiVersion":"policy.precedent.dev/v1alpha1","kind":"RateLimitPolicy","metadata":{"name":"r","namespace":"app-0"},"spec":` + spec + `}`)
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			UID:       "r",
			Kind:      metav1.GroupVersionKind{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "RateLimitPolicy"},
			Resource:  metav1.GroupVersionResource{Group: "policy.precedent.dev", Version: "v1alpha1", Resource: "ratelimitpolicies"},
			Name:      "r",
			Namespace: "app-0",
			Operation: admissionv1.Create,
			Object:    runtime.RawExtension{Raw: raw},
		}}
		if resp := v.Handle(context.Background(), req); resp.Allowed {
			t.Fatalf("%s allowed", spec)
		}
	}
	before := rejections(t)
	send(`{"targetRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw-0"},"unset":["a","a"]}`)
	send(`{"targetRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw-0","namespace":"x"},"limits":{"a":{}},"unset":["a"]}`)
	send(`{"targetRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"gw-0"},"limits":7}`)
	after := rejections(t)
	got := map[string]float64{}
	for k, n := range after {
		if d := n - before[k]; d != 0 {
			got[k] = d
		}
	}
	want := map[string]float64{"unset-duplicate": 1, "target-no-namespace": 1, "unset-declared": 1, "policy-spec": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rejections counted (-want +got):\n%s", diff)
	}
}
