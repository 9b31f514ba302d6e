package reconcile_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/reconcile"
	"github.com/precedent-dev/precedent/test/harness"
)

const gatewayAndRoute = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: main}]
`

const routePolicy = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: route-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules:
    authorization:
      b: {opa: {rego: allow = true}}
`

const gatewayOverride = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    strategy: atomic
    rules:
      authorization:
        z: {opa: {rego: allow = false}}
`

// conditions reads the status conditions of an AuthPolicy, rendered "Type=Status/Reason: message".
func conditions(ns, name string) (map[string]metav1.Condition, string, *unstructured.Unstructured) {
	return conditionsOf("policy.precedent.dev/v1alpha1", "AuthPolicy", ns, name)
}

// conditionsOf is conditions for a policy of any kind.
func conditionsOf(apiVersion, kind, ns, name string) (map[string]metav1.Condition, string, *unstructured.Unstructured) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, u); err != nil {
		return nil, err.Error(), nil
	}
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	out := map[string]metav1.Condition{}
	for _, item := range raw {
		var cond metav1.Condition
		if m, ok := item.(map[string]interface{}); ok && runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cond) == nil {
			out[cond.Type] = cond
		}
	}
	b, _ := yaml.Marshal(u.Object["status"])
	return out, string(b), u
}

func expect(t *testing.T, ns, name, ctype string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	expectOf(t, "policy.precedent.dev/v1alpha1", "AuthPolicy", ns, name, ctype, status, reason, message)
}

// expectOf is expect for a policy of any kind.
func expectOf(t *testing.T, apiVersion, kind, ns, name, ctype string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	harness.Eventually(t, fmt.Sprintf("%s %s=%s/%s", name, ctype, status, reason), func() (bool, string) {
		conds, state, _ := conditionsOf(apiVersion, kind, ns, name)
		got, ok := conds[ctype]
		return ok && got.Status == status && got.Reason == reason && got.Message == message && got.ObservedGeneration > 0, state
	})
}

func TestEnforcedTransitions(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, routePolicy)
	expect(t, ns, "route-policy", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")

	// A Gateway override created later takes the route over.
	gw := harness.Apply(t, c, ns, gatewayOverride)[0]
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionFalse, "Overridden", "Policy has been overridden by "+ns+"/gw-policy")
	expect(t, ns, "gw-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")

	// The transition is recorded as a Warning Event on the policy.
	harness.Eventually(t, "an Overridden event on route-policy", func() (bool, string) {
		evs := &eventsv1.EventList{}
		if err := c.List(context.Background(), evs, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range evs.Items {
			seen = append(seen, e.Regarding.Name+"/"+e.Reason+"/"+e.Type+": "+e.Note)
			if e.Regarding.Name == "route-policy" && e.Reason == "Overridden" && e.Type == "Warning" && e.Note == "Policy has been overridden by "+ns+"/gw-policy" {
				return true, ""
			}
		}
		return false, fmt.Sprint(seen)
	})

	// The ancestors name the Gateway.
	_, _, u := conditions(ns, "gw-policy")
	anc, _, _ := unstructured.NestedSlice(u.Object, "status", "ancestors")
	if len(anc) != 1 {
		t.Fatalf("ancestors = %v, want one entry for the Gateway", anc)
	}
	if name, _, _ := unstructured.NestedString(anc[0].(map[string]interface{}), "ancestorRef", "name"); name != "gw" {
		t.Errorf("ancestorRef.name = %q, want gw", name)
	}

	// Deleting it gives the route back.
	if err := c.Delete(context.Background(), gw); err != nil {
		t.Fatal(err)
	}
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
}

func TestPartiallyEnforced(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, routePolicy, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    strategy: merge
    rules:
      authorization:
        b: {opa: {rego: allow = false}}
        c: {opa: {rego: allow = false}}
`)
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionFalse, "Overridden", "Policy has been overridden by "+ns+"/gw-policy")
	// A second rule of the route survives: partially enforced.
	_, _, u := conditions(ns, "route-policy")
	if err := unstructured.SetNestedField(u.Object, map[string]interface{}{"opa": map[string]interface{}{"rego": "allow = true"}}, "spec", "rules", "authorization", "d"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "PartiallyEnforced",
		"Policy has been successfully enforced. The following rules have been overridden by "+ns+"/gw-policy: authorization.b")
}

// TestUnsetBy: a Gateway default that a route policy unsets is reported as unset by that policy,
// not as overridden by it: wholly (Overridden), then partly once the Gateway policy has a second
// default the route keeps (PartiallyEnforced).
func TestUnsetBy(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-defaults}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {strategy: merge, rules: {authentication: {a: {apiKey: {}}}}}
---
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: route-unset}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [authentication.a]
`)
	expect(t, ns, "gw-defaults", reconcile.TypeEnforced, metav1.ConditionFalse, "Overridden", "Policy has been unset by "+ns+"/route-unset")
	_, _, u := conditions(ns, "gw-defaults")
	if err := unstructured.SetNestedField(u.Object, map[string]interface{}{"apiKey": map[string]interface{}{}}, "spec", "defaults", "rules", "authentication", "b"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	expect(t, ns, "gw-defaults", reconcile.TypeEnforced, metav1.ConditionTrue, "PartiallyEnforced",
		"Policy has been successfully enforced. The following rules have been unset by "+ns+"/route-unset: authentication.a")
}

func TestTargetNotFoundThenAccepted(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, routePolicy)
	expect(t, ns, "route-policy", reconcile.TypeAccepted, metav1.ConditionFalse, "TargetNotFound", "Policy target HTTPRoute "+ns+"/route was not found")
	harness.Apply(t, c, ns, gatewayAndRoute)
	expect(t, ns, "route-policy", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")
}

// TestSteadyStateWritesNothing touches the topology without changing any policy's meaning and
// checks that the reconciler runs but writes no status.
func TestSteadyStateWritesNothing(t *testing.T) {
	ns := harness.Namespace(t, c)
	objs := harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, routePolicy)
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
	// The policy's condition can be seen before the rest of what its creation makes the reconciler
	// write (the Gateway's Affected condition, the ancestors): the count is taken once it settles.
	writes := settledWrites(t, "AuthPolicy")
	unchanged := harness.ReconcileUnchanged("AuthPolicy")

	gw := objs[0]
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: gw.GetName()}, gw); err != nil {
		t.Fatal(err)
	}
	gw.SetAnnotations(map[string]string{"touched": "yes"})
	if err := c.Update(context.Background(), gw); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the reconciler runs after the touch", func() (bool, string) {
		return harness.ReconcileUnchanged("AuthPolicy") > unchanged, fmt.Sprintf("unchanged=%v", harness.ReconcileUnchanged("AuthPolicy"))
	})
	if got := harness.ReconcileWrites("AuthPolicy"); got != writes {
		t.Errorf("status writes went from %v to %v on a change that means nothing", writes, got)
	}
	conds, _, _ := conditions(ns, "route-policy")
	if meta.IsStatusConditionTrue(mapToList(conds), reconcile.TypeEnforced) != true {
		t.Errorf("Enforced lost: %v", conds)
	}
}

func mapToList(m map[string]metav1.Condition) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range m {
		out = append(out, c)
	}
	return out
}

// TestGatewayAffected checks the AuthPolicyAffected condition on a Gateway: absent while no policy
// targets it, Affected once an enforced Gateway policy does, Unaffected after it is deleted.
// expectAffected waits for Gateway gw of ns to carry the AuthPolicyAffected condition given.
func expectAffected(t *testing.T, ns string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	ctype := "policy.precedent.dev/AuthPolicyAffected"
	harness.Eventually(t, ctype+"="+reason, func() (bool, string) {
		gw := &gwv1.Gateway{}
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "gw"}, gw); err != nil {
			return false, err.Error()
		}
		got := meta.FindStatusCondition(gw.Status.Conditions, ctype)
		b, _ := yaml.Marshal(gw.Status.Conditions)
		return got != nil && got.Status == status && got.Reason == reason && got.Message == message, string(b)
	})
}

func TestGatewayAffected(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	pol := harness.Apply(t, c, ns, gatewayOverride)[0]
	expectAffected(t, ns, metav1.ConditionTrue, "Affected", "The object is affected by AuthPolicy "+ns+"/gw-policy")
	if err := c.Delete(context.Background(), pol); err != nil {
		t.Fatal(err)
	}
	expectAffected(t, ns, metav1.ConditionFalse, "Unaffected", "The object is not affected by any AuthPolicy")
}

// TestSettingsChangeAcceptance flips the cluster settings under stored policies: a policy with
// unset becomes Invalid when unset is switched off (and Accepted again when it is back on), and with
// one-policy-per-target the newer of two policies on one route becomes Conflicted. (The first policy
// sorts first by name too, so the outcome does not depend on whether both were created within the
// same second of creationTimestamp.)
func TestSettingsChangeAcceptance(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: a-unsetter}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [authorization.z]
`)
	expect(t, ns, "a-unsetter", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })

	h.SetConfig(t, c, map[string]interface{}{"unsetEnabled": false})
	expect(t, ns, "a-unsetter", reconcile.TypeAccepted, metav1.ConditionFalse, "Invalid",
		"Policy is invalid: spec.unset: Forbidden: unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset")
	expect(t, ns, "a-unsetter", reconcile.TypeEnforced, metav1.ConditionFalse, "Unknown", "Policy has encountered some issues: it is not accepted")
	h.SetConfig(t, c, map[string]interface{}{"unsetEnabled": true})
	expect(t, ns, "a-unsetter", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")

	harness.Apply(t, c, ns, routePolicy)
	h.SetConfig(t, c, map[string]interface{}{"onePolicyPerTarget": true})
	expect(t, ns, "route-policy", reconcile.TypeAccepted, metav1.ConditionFalse, "Conflicted", "Policy is conflicted by "+ns+"/a-unsetter")
	expect(t, ns, "a-unsetter", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")
}

// TestNotInAnyPath: a route attached to no Gateway exists (Accepted) but carries no traffic.
func TestNotInAnyPath(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route}
spec:
  parentRefs: [{name: missing-gateway}]
  rules: [{name: main}]
`, routePolicy)
	expect(t, ns, "route-policy", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionFalse, "Unknown", "Policy has encountered some issues: it is not in the path of any route or listener")
}

// TestKindManagedAtRuntime: a kind added to the PrecedentConfig gets its status controllers then,
// with no restart: its policies written before the change get their conditions. Removed from the
// settings, the kind's controllers (which run until a restart) no longer write its statuses; managed
// again, they resume.
func TestKindManagedAtRuntime(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	const group = "limits.example.com"
	apiVersion := harness.InstallCRDCopy(t, c, "ratelimitpolicy.yaml", group)
	applyLimits(t, apiVersion, ns)

	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	managed := map[string]interface{}{"kinds": []interface{}{harness.LimitsKind(group)}}
	h.SetConfig(t, c, managed)
	expectLimitsReconciled(t, apiVersion, ns)

	h.SetConfig(t, c, map[string]interface{}{})
	gw := &unstructured.Unstructured{}
	gw.SetAPIVersion(apiVersion)
	gw.SetKind("RateLimitPolicy")
	gw.SetNamespace(ns)
	gw.SetName("gw-limits")
	if err := c.Delete(context.Background(), gw); err != nil {
		t.Fatal(err)
	}
	// Managed, route-limits would be Enforced within milliseconds of the deletion.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		conds, state, _ := conditionsOf(apiVersion, "RateLimitPolicy", ns, "route-limits")
		if got := conds[reconcile.TypeEnforced]; got.Reason != "Overridden" {
			t.Fatalf("the status of a policy of a kind no longer managed was rewritten: %s", state)
		}
	}
	h.SetConfig(t, c, managed)
	expectOf(t, apiVersion, "RateLimitPolicy", ns, "route-limits", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
}

// TestKindInstalledAfterItsConfig: a kind made managed before its CRD is installed gets its status
// controllers once the CRD is (within InstallRetry, a second in the tests), with no restart and no
// further settings change, and its statuses count its other policies (the webhook's state watches
// the kind first).
func TestKindInstalledAfterItsConfig(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	const group = "late.example.com"
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	h.SetConfig(t, c, map[string]interface{}{"kinds": []interface{}{harness.LimitsKind(group)}})
	apiVersion := harness.InstallCRDCopy(t, c, "ratelimitpolicy.yaml", group)
	applyLimits(t, apiVersion, ns)
	expectLimitsReconciled(t, apiVersion, ns)
}

// applyLimits applies, in RateLimitPolicy's copy apiVersion, an atomic Gateway policy and a route
// policy under it.
func applyLimits(t *testing.T, apiVersion, ns string) {
	t.Helper()
	harness.Apply(t, c, ns, harness.GatewayLimits(apiVersion, "atomic"), `
apiVersion: `+apiVersion+`
kind: RateLimitPolicy
metadata: {name: route-limits}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits: {per-user: {rates: [{limit: 5, window: 1m}]}}`)
}

// expectLimitsReconciled waits for the statuses applyLimits' policies must get: the Gateway policy
// enforced, the route policy overridden by it.
func expectLimitsReconciled(t *testing.T, apiVersion, ns string) {
	t.Helper()
	expectOf(t, apiVersion, "RateLimitPolicy", ns, "gw-limits", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
	expectOf(t, apiVersion, "RateLimitPolicy", ns, "route-limits", reconcile.TypeEnforced, metav1.ConditionFalse, "Overridden", "Policy has been overridden by "+ns+"/gw-limits")
}

// settledWrites waits until the reconciler's status writes of kind have not moved for a second
// (polled, with the harness's deadline), and returns their count.
func settledWrites(t *testing.T, kind string) float64 {
	t.Helper()
	last, since := harness.ReconcileWrites(kind), time.Now()
	harness.Eventually(t, "the reconciler's status writes settle", func() (bool, string) {
		if w := harness.ReconcileWrites(kind); w != last {
			last, since = w, time.Now()
		}
		return time.Since(since) >= time.Second, fmt.Sprintf("writes=%v, last moved %s ago", last, time.Since(since).Round(time.Millisecond))
	})
	return last
}
