package chart

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestEnvoyGatewayComponent: the config/envoy-gateway component adds Envoy Gateway's four policy
// kinds to Precedent's own validating webhook configuration (writes failing closed, deletes failing
// open, on the same Service and path), read-only RBAC, and the PrecedentConfig managing them with
// the envoy-gateway profile, and leaves the rest of config/default as it is.
func TestEnvoyGatewayComponent(t *testing.T) {
	with := assertComponent(t, "with-envoy-gateway", "envoy-gateway", "gateway.envoyproxy.io",
		[]string{"backendtrafficpolicies", "securitypolicies", "clienttrafficpolicies", "envoyextensionpolicies"})
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
