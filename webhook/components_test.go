package webhook

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/profiles/envoygateway"
	"github.com/precedent-dev/precedent/profiles/kgateway"
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

// TestWarnOnlyWritesFailOpen: kgateway's HTTPRoute and Gateway writes, which only ever get
// warnings (their annotation's effect on child routes), reach the webhook through an entry that
// fails open, so a Precedent outage never blocks a route write; TrafficPolicy writes stay in the
// entry that fails closed. The same in Configurations (warnings.precedent.dev) and in the component
// (kgateway-warnings.policies.precedent.dev); without a kgateway kind, no such entry.
func TestWarnOnlyWritesFailOpen(t *testing.T) {
	tp := policy.Kind{GVK: schema.GroupVersionKind{Group: "gateway.kgateway.dev", Version: "v1alpha1", Kind: "TrafficPolicy"}, Profile: kgateway.Name}
	_, v := Configurations(append(policy.Builtin(), tp), ServiceClientConfig)
	comp, err := ComponentWebhooks("kgateway", kgateway.Profile{}, []policy.Kind{tp}, ServiceClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	_, plain := Configurations(policy.Builtin(), ServiceClientConfig)
	type entry struct {
		Policy    admissionregistrationv1.FailurePolicyType
		Resources []string
	}
	entries := func(ws []admissionregistrationv1.ValidatingWebhook) map[string]entry {
		out := map[string]entry{}
		for _, w := range ws {
			var ops []admissionregistrationv1.OperationType
			for _, r := range w.Rules {
				ops = append(ops, r.Operations...)
			}
			if slices.Contains(ops, admissionregistrationv1.Delete) {
				continue
			}
			rs := resourcesOf(w.Rules)
			slices.Sort(rs) // the order is TestManifests' and TestComponentWebhooks'
			out[w.Name] = entry{*w.FailurePolicy, rs}
		}
		return out
	}
	builtin := entries(plain.Webhooks)
	withKgateway := entries(plain.Webhooks)
	withPolicies := append([]string{"gateway.kgateway.dev/trafficpolicies"}, builtin[policiesWebhook].Resources...)
	slices.Sort(withPolicies)
	withKgateway[policiesWebhook] = entry{admissionregistrationv1.Fail, withPolicies}
	withKgateway[warningsWebhook] = entry{admissionregistrationv1.Ignore, []string{"gateway.networking.k8s.io/gateways", "gateway.networking.k8s.io/httproutes"}}
	for _, tc := range []struct {
		name string
		ws   []admissionregistrationv1.ValidatingWebhook
		want map[string]entry
	}{
		{"configurations with a kgateway kind", v.Webhooks, withKgateway},
		{"component", comp, map[string]entry{
			"kgateway.policies.precedent.dev":          {admissionregistrationv1.Fail, []string{"gateway.kgateway.dev/trafficpolicies"}},
			"kgateway-warnings.policies.precedent.dev": {admissionregistrationv1.Ignore, []string{"gateway.networking.k8s.io/gateways", "gateway.networking.k8s.io/httproutes"}},
		}},
		{"configurations without", plain.Webhooks, builtin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, entries(tc.ws)); diff != "" {
				t.Errorf("entries of creates and updates (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := builtin[warningsWebhook]; ok {
		t.Errorf("%s without a kind that needs it", warningsWebhook)
	}
}
