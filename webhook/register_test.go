package webhook

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/policy"
)

// TestDefaultingRegisteredOnlyWhereNeeded: the strategy-defaulting webhook matches the configured
// defaults-overrides kinds only; the shipped CRDs default strategy in their schema, so their writes
// must not make the API server evaluate its matchConditions. Every managed kind stays validated.
func TestDefaultingRegisteredOnlyWhereNeeded(t *testing.T) {
	kuadrant := policy.Kind{GVK: schema.GroupVersionKind{Group: "kuadrant.io", Version: "v1", Kind: "RateLimitPolicy"}, Profile: policy.ProfileDefaultsOverrides, RulesField: "limits"}
	gep := policy.Kind{GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TimeoutPolicy"}, Profile: policy.ProfileGEP713}
	m, v := Configurations(append(policy.Builtin(), kuadrant, gep), URLClientConfig("https://127.0.0.1:9443", nil))

	var mutated, validated []string
	for _, w := range m.Webhooks {
		if w.Name == defaultsWebhook {
			mutated = resourcesOf(w.Rules)
		}
	}
	for _, w := range v.Webhooks {
		if w.Name == policiesWebhook {
			validated = resourcesOf(w.Rules)
		}
	}
	if diff := cmp.Diff([]string{"kuadrant.io/ratelimitpolicies"}, mutated); diff != "" {
		t.Errorf("resources of %s (-want +got):\n%s", defaultsWebhook, diff)
	}
	for _, want := range []string{"policy.precedent.dev/authpolicies", "policy.precedent.dev/ratelimitpolicies", "policy.precedent.dev/trafficpolicies", "kuadrant.io/ratelimitpolicies", "example.com/timeoutpolicies"} {
		if !slices.Contains(validated, want) {
			t.Errorf("%s is not validated by %s: %v", want, policiesWebhook, validated)
		}
	}
}

// resourcesOf lists the group/resource pairs rules match.
func resourcesOf(rules []admissionregistrationv1.RuleWithOperations) []string {
	var out []string
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				out = append(out, g+"/"+res)
			}
		}
	}
	return out
}

// TestDeletesFailOpen: deletes, which only warn, reach the webhook through one entry that fails open
// (so Precedent being down never blocks a delete), for every kind whose deletes are projected and
// PrecedentConfig; no other entry sees a delete, and the others fail closed.
func TestDeletesFailOpen(t *testing.T) {
	_, v := Configurations(policy.Builtin(), URLClientConfig("https://127.0.0.1:9443", nil))
	var deleted []string
	for _, w := range v.Webhooks {
		var ops []admissionregistrationv1.OperationType
		for _, r := range w.Rules {
			ops = append(ops, r.Operations...)
		}
		switch {
		case w.Name == deletesWebhook:
			if *w.FailurePolicy != admissionregistrationv1.Ignore {
				t.Errorf("%s: failurePolicy %s, want Ignore", w.Name, *w.FailurePolicy)
			}
			if slices.ContainsFunc(ops, func(o admissionregistrationv1.OperationType) bool { return o != admissionregistrationv1.Delete }) {
				t.Errorf("%s sees other operations than DELETE: %v", w.Name, ops)
			}
			deleted = resourcesOf(w.Rules)
		case slices.Contains(ops, admissionregistrationv1.Delete):
			t.Errorf("%s sees deletes: %v", w.Name, ops)
		case *w.FailurePolicy != admissionregistrationv1.Fail:
			t.Errorf("%s: failurePolicy %s, want Fail", w.Name, *w.FailurePolicy)
		}
	}
	want := []string{"policy.precedent.dev/authpolicies", "policy.precedent.dev/ratelimitpolicies", "policy.precedent.dev/trafficpolicies",
		"policy.precedent.dev/accesspolicies", "agentic.prototype.x-k8s.io/xaccesspolicies", "policy.precedent.dev/precedentconfigs"}
	if diff := cmp.Diff(want, deleted); diff != "" {
		t.Errorf("resources of %s (-want +got):\n%s", deletesWebhook, diff)
	}
}
