package chart

import (
	"path/filepath"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestEnvoyGatewayComponent: the config/envoy-gateway component adds Envoy Gateway's four policy
// kinds to Precedent's own validating webhook configuration (writes failing closed, deletes failing
// open, on the same Service and path), read-only RBAC, and the PrecedentConfig managing them with
// the envoy-gateway profile, and leaves the rest of config/default as it is.
func TestEnvoyGatewayComponent(t *testing.T) {
	base := renderKustomize(t, "default")
	with := renderKustomizeAt(t, filepath.Join("testdata", "with-envoy-gateway"))
	if got, want := len(with), len(base)+3; got != want {
		t.Errorf("%d objects with the component, want %d (config/default's + ClusterRole, ClusterRoleBinding, PrecedentConfig): %v", got, want, kinds(with))
	}
	vwc := byKind(with, "ValidatingWebhookConfiguration")["precedent"]
	if vwc == nil {
		t.Fatal("no ValidatingWebhookConfiguration precedent")
	}
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	convert(t, vwc, &cfg)
	resources := []string{"backendtrafficpolicies", "securitypolicies", "clienttrafficpolicies", "envoyextensionpolicies"}
	want := map[string]struct {
		ops    []admissionregistrationv1.OperationType
		policy admissionregistrationv1.FailurePolicyType
	}{
		"envoy-gateway.policies.precedent.dev":         {[]admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}, admissionregistrationv1.Fail},
		"envoy-gateway-deletes.policies.precedent.dev": {[]admissionregistrationv1.OperationType{admissionregistrationv1.Delete}, admissionregistrationv1.Ignore},
	}
	found := 0
	for _, w := range cfg.Webhooks {
		exp, ok := want[w.Name]
		if !ok {
			continue
		}
		found++
		if w.FailurePolicy == nil || *w.FailurePolicy != exp.policy {
			t.Errorf("%s: failurePolicy %v, want %s", w.Name, w.FailurePolicy, exp.policy)
		}
		if w.ClientConfig.Service == nil || w.ClientConfig.Service.Name != "precedent-webhook" || w.ClientConfig.Service.Path == nil || *w.ClientConfig.Service.Path != "/validate" {
			t.Errorf("%s: clientConfig %+v, want the precedent-webhook Service on /validate", w.Name, w.ClientConfig)
		}
		if len(w.Rules) != 1 || !slices.Equal(w.Rules[0].APIGroups, []string{"gateway.envoyproxy.io"}) || !slices.Equal(w.Rules[0].Resources, resources) || !slices.Equal(w.Rules[0].Operations, exp.ops) {
			t.Errorf("%s: rules %+v, want %v of gateway.envoyproxy.io %v", w.Name, w.Rules, exp.ops, resources)
		}
	}
	if found != len(want) {
		t.Errorf("found %d of the component's webhook entries, want %d", found, len(want))
	}
	pc := byKind(with, "PrecedentConfig")["cluster"]
	if pc == nil {
		t.Fatal("no PrecedentConfig cluster")
	}
	kindsList, _, _ := unstructured.NestedSlice(pc.Object, "spec", "kinds")
	if len(kindsList) != 4 {
		t.Errorf("PrecedentConfig manages %d kinds, want Envoy Gateway's 4", len(kindsList))
	}
	for _, k := range kindsList {
		if p, _ := k.(map[string]interface{})["profile"].(string); p != "envoy-gateway" {
			t.Errorf("kind %v has profile %q, want envoy-gateway", k, p)
		}
	}
}
