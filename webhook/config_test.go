package webhook_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/webhook"
)

// TestConfigStatusWriter: a PrecedentConfig may ask status full only of a profile with a status
// writer; the webhook refuses the others' lines, naming each.
func TestConfigStatusWriter(t *testing.T) {
	st := state.New(logr.Discard())
	if err := st.Watch(context.Background(), statetest.New(t), settings.Defaults().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	v := &webhook.Validator{Settings: liveconfig.NewLive(settings.Defaults(), logr.Discard()), State: st, Log: logr.Discard()}
	line := func(group, kind, profile, status string) map[string]interface{} {
		return map[string]interface{}{"gvk": map[string]interface{}{"group": group, "version": "v1alpha1", "kind": kind}, "profile": profile, "status": status}
	}
	tests := []struct {
		name  string
		kinds []interface{}
		want  []string // the causes of the denial; none: allowed
	}{
		{
			name: "status full refused for Kuma's MeshTimeout and Envoy Gateway's SecurityPolicy",
			kinds: []interface{}{line("kuma.io", "MeshTimeout", "mesh", "full"), line("kuadrant.io", "RateLimitPolicy", "kuadrant", "full"),
				line("gateway.envoyproxy.io", "SecurityPolicy", "envoy-gateway", "full")},
			want: []string{`spec.kinds[0].status: Unsupported value: "full": PRC-E033 supported values: "none"`,
				`spec.kinds[2].status: Unsupported value: "full": PRC-E033 supported values: "none"`},
		},
		{
			name:  "status none allowed for them",
			kinds: []interface{}{line("kuma.io", "MeshTimeout", "mesh", "none"), line("gateway.envoyproxy.io", "SecurityPolicy", "envoy-gateway", "none")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := json.Marshal(map[string]interface{}{
				"apiVersion": settings.GVK.GroupVersion().String(), "kind": settings.GVK.Kind,
				"metadata": map[string]interface{}{"name": settings.Name}, "spec": map[string]interface{}{"kinds": tt.kinds},
			})
			if err != nil {
				t.Fatal(err)
			}
			resp := v.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				Kind:      metav1.GroupVersionKind{Group: settings.GVK.Group, Version: settings.GVK.Version, Kind: settings.GVK.Kind},
				Name:      settings.Name,
				Operation: admissionv1.Create,
				Object:    runtime.RawExtension{Raw: raw},
			}})
			var got []string
			if resp.Result != nil && resp.Result.Details != nil {
				for _, c := range resp.Result.Details.Causes {
					got = append(got, c.Field+": "+c.Message)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if resp.Allowed != (len(tt.want) == 0) {
				t.Errorf("allowed = %t, want %t: %+v", resp.Allowed, len(tt.want) == 0, resp.Result)
			}
		})
	}
}
