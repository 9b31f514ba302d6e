package reconcile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

// invalidOverride: a route policy setting b under a Gateway policy that overrides b and unsets a
// rule, so that it is Invalid once unset is switched off.
const invalidOverride = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: t}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route, namespace: t}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: main}]
---
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: route-policy, namespace: t}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules:
    authorization:
      b: {opa: {rego: allow = true}}
---
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy, namespace: t}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    strategy: merge
    rules:
      authorization:
        b: {opa: {rego: allow = false}}
  unset: [authorization.q]
---
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-missing, namespace: t}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: nowhere}
  overrides:
    rules:
      authorization:
        b: {opa: {rego: allow = false}}
`

func objects(t *testing.T, docs string) []*unstructured.Unstructured {
	t.Helper()
	path := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte(docs), 0o600); err != nil {
		t.Fatal(err)
	}
	return read(t, path)
}

// TestEnforcedFoldsAcceptedPoliciesOnly: a policy the reconciler does not accept (here Invalid:
// it unsets while unset is switched off) holds nothing in the folds that decide the others'
// Enforced condition, as the views leave it out; accepted again, it overrides again.
func TestEnforcedFoldsAcceptedPoliciesOnly(t *testing.T) {
	snap := snapshotOf(t, "AuthPolicy", objects(t, invalidOverride))
	route, _ := snap.Policy(policy.Ref{Namespace: "t", Name: "route-policy"})
	gw, _ := snap.Policy(policy.Ref{Namespace: "t", Name: "gw-policy"})
	noErrs := func(*policy.Policy) field.ErrorList { return nil }
	unsetOff := settings.Defaults()
	unsetOff.UnsetEnabled = false
	enforcedOf := func(a *acceptance, s settings.Settings) metav1.Condition {
		st := compute(snap, route, Invalid(snap, route, s), s, nil, func() *effective.Snapshot { return a.foldsFor(snap, route, s, noErrs) })
		c := st.Conditions[1]
		return metav1.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
	}
	a := &acceptance{}
	for _, step := range []struct {
		name string
		s    settings.Settings
		want metav1.Condition
		gwOK bool
	}{
		{"unset on: the Gateway policy overrides", settings.Defaults(),
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionFalse, Reason: ReasonOverridden, Message: "Policy has been overridden by t/gw-policy"}, true},
		{"unset off: the Gateway policy is Invalid and holds nothing", unsetOff,
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionTrue, Reason: ReasonEnforced, Message: "Policy has been successfully enforced"}, false},
		{"unset on again", settings.Defaults(),
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionFalse, Reason: ReasonOverridden, Message: "Policy has been overridden by t/gw-policy"}, true},
	} {
		if diff := cmp.Diff(step.want, enforcedOf(a, step.s)); diff != "" {
			t.Errorf("%s: Enforced (-want +got):\n%s", step.name, diff)
		}
		if got := a.accepted(snap, gw, step.s, noErrs); got != step.gwOK {
			t.Errorf("%s: gw-policy accepted = %v, want %v", step.name, got, step.gwOK)
		}
		// The judgement agrees with the Accepted condition Reconcile writes on the policy itself.
		if ok, _, _ := Accepted(snap, gw, Invalid(snap, gw, step.s), step.s); ok != step.gwOK {
			t.Errorf("%s: Accepted(gw-policy) = %v, the folds judged %v", step.name, ok, step.gwOK)
		}
	}
	// A policy whose target does not exist is not accepted, and a view error makes a policy Invalid.
	missing, _ := snap.Policy(policy.Ref{Namespace: "t", Name: "gw-missing"})
	if (&acceptance{}).accepted(snap, missing, settings.Defaults(), noErrs) {
		t.Error("gw-missing, whose Gateway does not exist, is judged accepted")
	}
	viewErr := func(p *policy.Policy) field.ErrorList {
		if p.Ref.Name == "gw-policy" {
			return field.ErrorList{field.Invalid(field.NewPath("spec", "overrides"), "x", "unreadable")}
		}
		return nil
	}
	a = &acceptance{}
	st := compute(snap, route, nil, settings.Defaults(), nil, func() *effective.Snapshot { return a.foldsFor(snap, route, settings.Defaults(), viewErr) })
	if c := st.Conditions[1]; c.Reason != ReasonEnforced {
		t.Errorf("with gw-policy unreadable, route-policy's Enforced = %s/%s, want Enforced", c.Reason, c.Message)
	}
}
