package chart

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// kgatewayExtraKinds are the chart values that manage kgateway's TrafficPolicy, as docs/profiles/kgateway.md says.
var kgatewayExtraKinds = map[string]any{"extraKinds": []any{map[string]any{
	"resource": "trafficpolicies", "gvk": map[string]any{"group": "gateway.kgateway.dev", "version": "v1alpha1", "kind": "TrafficPolicy"}, "profile": "kgateway",
}}}

// TestKgatewayWebhookFailurePolicies: with kgateway's TrafficPolicy managed, by the chart's
// extraKinds or by the config/kgateway component, the API server sends Precedent the HTTPRoute and
// Gateway creates and updates (their kgateway.dev/inherited-policy-priority annotation gets the
// warnings of what children lose) through entries that fail open, since they only ever get
// warnings: a Precedent outage never blocks a route or Gateway write. TrafficPolicy creates and
// updates fail closed; their deletes fail open.
func TestKgatewayWebhookFailurePolicies(t *testing.T) {
	want := map[string]admissionregistrationv1.FailurePolicyType{
		"CREATE gateway.kgateway.dev/trafficpolicies": admissionregistrationv1.Fail,
		"UPDATE gateway.kgateway.dev/trafficpolicies": admissionregistrationv1.Fail,
		"DELETE gateway.kgateway.dev/trafficpolicies": admissionregistrationv1.Ignore,
		"CREATE gateway.networking.k8s.io/httproutes": admissionregistrationv1.Ignore,
		"UPDATE gateway.networking.k8s.io/httproutes": admissionregistrationv1.Ignore,
		"CREATE gateway.networking.k8s.io/gateways":   admissionregistrationv1.Ignore,
		"UPDATE gateway.networking.k8s.io/gateways":   admissionregistrationv1.Ignore,
	}
	for _, tc := range []struct {
		name string
		hook hooks
	}{
		{"chart extraKinds", webhooks(t, renderChart(t, kgatewayExtraKinds, false))},
		{"config/kgateway component", webhooks(t, renderKustomizeAt(t, filepath.Join("testdata", "with-kgateway")))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]admissionregistrationv1.FailurePolicyType{}
			for _, w := range tc.hook.Validating {
				for _, r := range w.Rules {
					if !slices.Contains(r.APIGroups, "gateway.kgateway.dev") && !slices.Contains(r.APIGroups, "gateway.networking.k8s.io") {
						continue
					}
					for _, op := range r.Operations {
						for _, g := range r.APIGroups {
							for _, res := range r.Resources {
								got[string(op)+" "+g+"/"+res] = *w.FailurePolicy
							}
						}
					}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("failure policy per operation (-want +got):\n%s", diff)
			}
		})
	}
}
