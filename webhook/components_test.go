package webhook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/profiles/envoygateway"
	"github.com/precedent-dev/precedent/profiles/kuadrant"
)

// TestComponentWebhooks: a component's entries are configured like Configurations' entries of the
// same failure policy (policies.precedent.dev for writes, deletes.precedent.dev for deletes) but
// for their name and rules: one rule per API group, every version, the profile's resources in order.
func TestComponentWebhooks(t *testing.T) {
	gvk := func(kind string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: kind}
	}
	kinds := []policy.Kind{
		{GVK: gvk("RateLimitPolicy"), Profile: policy.ProfileKuadrant},
		{GVK: gvk("AuthPolicy"), Profile: policy.ProfileKuadrant},
	}
	got, err := ComponentWebhooks("kuadrant", kuadrant.New(), kinds, ServiceClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	_, v := Configurations(append(policy.Builtin(), kinds...), ServiceClientConfig)
	like := map[string]admissionregistrationv1.ValidatingWebhook{}
	for _, w := range v.Webhooks {
		like[w.Name] = w
	}
	scope := admissionregistrationv1.NamespacedScope
	rule := func(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{
			APIGroups: []string{"kuadrant.io"}, APIVersions: []string{"*"}, Resources: []string{"ratelimitpolicies", "authpolicies"}, Scope: &scope,
		}}}
	}
	writes, deletes := like[policiesWebhook], like[deletesWebhook]
	writes.Name, writes.Rules = "kuadrant.policies.precedent.dev", rule(admissionregistrationv1.Create, admissionregistrationv1.Update)
	deletes.Name, deletes.Rules = "kuadrant-deletes.policies.precedent.dev", rule(admissionregistrationv1.Delete)
	if diff := cmp.Diff([]admissionregistrationv1.ValidatingWebhook{writes, deletes}, got); diff != "" {
		t.Errorf("component entries (-want +got):\n%s", diff)
	}
}

// TestComponentWebhooksMutating: a component cannot carry a kind its profile defaults (a mutating
// entry), since it patches only the validating configuration.
func TestComponentWebhooksMutating(t *testing.T) {
	k := policy.Kind{GVK: schema.GroupVersionKind{Group: "gateway.envoyproxy.io", Version: "v1alpha1", Kind: "BackendTrafficPolicy"},
		Profile: envoygateway.Name, Defaults: map[string]string{"mergeType": "StrategicMerge"}}
	if _, err := ComponentWebhooks("envoy-gateway", envoygateway.Profile{}, []policy.Kind{k}, ServiceClientConfig); err == nil {
		t.Error("no error for a kind with a mutating webhook")
	}
}
