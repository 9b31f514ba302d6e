package reconcile_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/reconcile"
	"github.com/precedent-dev/precedent/test/harness"
)

// foreignAncestors are another controller's PolicyAncestorStatus entries, for the Gateway gw and a
// Gateway Precedent knows nothing of.
func foreignAncestors(ns string) []interface{} {
	entry := func(gw string) interface{} {
		return map[string]interface{}{
			"ancestorRef":    map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "namespace": ns, "name": gw},
			"controllerName": "example.com/gateway-controller",
			"conditions": []interface{}{map[string]interface{}{
				"type": "Accepted", "status": "True", "reason": "Accepted", "message": "seen by example.com",
				"observedGeneration": int64(1), "lastTransitionTime": "2024-01-01T00:00:00Z",
			}},
		}
	}
	return []interface{}{entry("gw"), entry("elsewhere")}
}

// ancestors reads status.ancestors of an AuthPolicy: the foreign entries (other controllerName) in
// order, and the Gateways Precedent's entries name.
func ancestors(ns, name string) (foreign []interface{}, ours []string, state string) {
	_, state, u := conditions(ns, name)
	if u == nil {
		return nil, nil, state
	}
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "ancestors")
	for _, a := range raw {
		m := a.(map[string]interface{})
		if m["controllerName"] == reconcile.ControllerName {
			n, _, _ := unstructured.NestedString(m, "ancestorRef", "name")
			ours = append(ours, n)
			continue
		}
		foreign = append(foreign, a)
	}
	return foreign, ours, state
}

// TestForeignAncestorsKept: another controller's status.ancestors entries (one for the same
// Gateway) sit beside Precedent's, and stay, unchanged and in order, while Precedent removes its
// own entry (target gone) and adds it back (target back).
func TestForeignAncestorsKept(t *testing.T) {
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, gatewayOverride)
	harness.Eventually(t, "Precedent's ancestor entry for gw", func() (bool, string) {
		_, ours, state := ancestors(ns, "gw-policy")
		return cmp.Equal(ours, []string{"gw"}), state
	})

	// The other controller puts its entries first, before Precedent's.
	foreign := foreignAncestors(ns)
	updateStatus(t, policyKey("policy.precedent.dev/v1alpha1", "AuthPolicy", ns, "gw-policy"), func(st map[string]interface{}) {
		own, _ := st["ancestors"].([]interface{})
		st["ancestors"] = append(append([]interface{}{}, foreign...), own...)
	})
	expectAncestors := func(what string, wantOurs []string) {
		t.Helper()
		harness.Eventually(t, what, func() (bool, string) {
			got, ours, state := ancestors(ns, "gw-policy")
			return cmp.Equal(got, foreign) && cmp.Equal(ours, wantOurs), state
		})
	}
	expectAncestors("foreign entries beside Precedent's", []string{"gw"})

	// The target goes: Precedent's entry goes, the others stay.
	retarget(t, ns, "gone")
	expect(t, ns, "gw-policy", reconcile.TypeAccepted, metav1.ConditionFalse, "TargetNotFound", "Policy target Gateway "+ns+"/gone was not found")
	expectAncestors("only the foreign entries once the target is gone", nil)

	// The target is back: Precedent's entry is back, after the others.
	retarget(t, ns, "gw")
	expect(t, ns, "gw-policy", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")
	expectAncestors("Precedent's entry back beside the foreign ones", []string{"gw"})
	if got, _, state := ancestors(ns, "gw-policy"); !cmp.Equal(got, foreign) {
		t.Errorf("foreign entries changed:\n%s", state)
	}
}

// retarget points the AuthPolicy gw-policy at the Gateway gw.
func retarget(t *testing.T, ns, gw string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u := policyObject("policy.precedent.dev/v1alpha1", "AuthPolicy")
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "gw-policy"}, u); err != nil {
			return err
		}
		if err := unstructured.SetNestedField(u.Object, gw, "spec", "targetRef", "name"); err != nil {
			return err
		}
		return c.Update(context.Background(), u)
	})
	if err != nil {
		t.Fatal(err)
	}
}

type objectKey struct {
	apiVersion, kind string
	types.NamespacedName
}

func policyKey(apiVersion, kind, ns, name string) objectKey {
	return objectKey{apiVersion, kind, types.NamespacedName{Namespace: ns, Name: name}}
}

func policyObject(apiVersion, kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u
}

// updateStatus edits the status of a policy the way another controller does: read, change, PUT
// the status subresource, again on a conflict.
func updateStatus(t *testing.T, k objectKey, edit func(status map[string]interface{})) *unstructured.Unstructured {
	t.Helper()
	u := policyObject(k.apiVersion, k.kind)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(context.Background(), k.NamespacedName, u); err != nil {
			return err
		}
		st, _ := u.Object["status"].(map[string]interface{})
		if st == nil {
			st = map[string]interface{}{}
		}
		edit(st)
		u.Object["status"] = st
		return c.Status().Update(context.Background(), u)
	})
	if err != nil {
		t.Fatalf("writing the status of %s %s: %v", k.kind, k.NamespacedName, err)
	}
	return u
}

// kuadrantLimits are two kuadrant.io RateLimitPolicies: merge defaults on the Gateway, bare limits
// on the route.
const kuadrantLimits = `
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: gw-rlp}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults:
    strategy: merge
    limits: {global: {rates: [{limit: 100, window: 1m}]}}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: route-rlp}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits: {per-user: {rates: [{limit: 5, window: 1m}], counters: [{expression: auth.identity.userid}]}}
`

// kuadrantKind is the one-line PrecedentConfig entry for Kuadrant's RateLimitPolicy, with status
// mode mode ("" for the profile's default, none).
func kuadrantKind(mode string) map[string]interface{} {
	k := map[string]interface{}{"gvk": map[string]interface{}{"group": "kuadrant.io", "version": "v1", "kind": "RateLimitPolicy"}, "profile": "kuadrant"}
	if mode != "" {
		k["status"] = mode
	}
	return k
}

// kuadrantStatus writes a status on a Kuadrant policy as Kuadrant's operator does: observedGeneration
// and its own Accepted and Enforced conditions, replacing the whole status.
func kuadrantStatus(t *testing.T, ns, name string) {
	t.Helper()
	updateStatus(t, policyKey("kuadrant.io/v1", "RateLimitPolicy", ns, name), func(st map[string]interface{}) {
		for k := range st {
			delete(st, k)
		}
		st["observedGeneration"] = int64(1)
		st["conditions"] = []interface{}{
			map[string]interface{}{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "RateLimitPolicy has been accepted",
				"observedGeneration": int64(1), "lastTransitionTime": "2024-01-01T00:00:00Z"},
			map[string]interface{}{"type": "Enforced", "status": "True", "reason": "Enforced", "message": "RateLimitPolicy has been successfully enforced",
				"observedGeneration": int64(1), "lastTransitionTime": "2024-01-01T00:00:00Z"},
		}
	})
}

// kuadrantAffected writes the Gateway condition Kuadrant's operator writes for a RateLimitPolicy.
func kuadrantAffected(t *testing.T, ns string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		gw := &gwv1.Gateway{}
		if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "gw"}, gw); err != nil {
			return err
		}
		gw.Status.Conditions = append(gw.Status.Conditions, metav1.Condition{
			Type: "kuadrant.io/RateLimitPolicyAffected", Status: metav1.ConditionTrue, Reason: "Accepted",
			Message: "Object affected by RateLimitPolicy [" + ns + "/gw-rlp]", ObservedGeneration: gw.Generation,
			LastTransitionTime: metav1.Now(),
		})
		return c.Status().Update(context.Background(), gw)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// statuses renders the statuses of the Kuadrant policies and the Gateway's conditions.
func statuses(t *testing.T, ns string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{"gw-rlp", "route-rlp"} {
		_, state, _ := conditionsOf("kuadrant.io/v1", "RateLimitPolicy", ns, name)
		fmt.Fprintf(&b, "%s:\n%s", name, state)
	}
	gw := &gwv1.Gateway{}
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "gw"}, gw); err != nil {
		t.Fatal(err)
	}
	y, _ := yaml.Marshal(gw.Status.Conditions)
	fmt.Fprintf(&b, "gw conditions:\n%s", y)
	return b.String()
}

// touch changes a label of the Gateway gw or the HTTPRoute route, n times: a topology event that
// changes no policy's meaning.
func touch(t *testing.T, ns string, obj client.Object, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
				return err
			}
			obj.SetLabels(map[string]string{"touched": fmt.Sprint(i)})
			return c.Update(context.Background(), obj)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// kuadrantWrites counts the status writes the API server served on Kuadrant's RateLimitPolicies.
func kuadrantWrites(t *testing.T) float64 {
	t.Helper()
	n, err := harness.StatusWrites(context.Background(), h.Env.Config, "kuadrant.io", "ratelimitpolicies")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// touchAndSettle touches the Gateway and the route three times each and waits until the status
// reconciler of AuthPolicy (full, beside them) has reconciled after the last touch: the topology
// events have reached the controllers.
func touchAndSettle(t *testing.T, ns string) {
	t.Helper()
	before := harness.ReconcileUnchanged("AuthPolicy")
	touch(t, ns, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gw"}}, 3)
	touch(t, ns, &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "route"}}, 3)
	harness.Eventually(t, "the AuthPolicy reconciler runs after the touches", func() (bool, string) {
		return harness.ReconcileUnchanged("AuthPolicy") > before, fmt.Sprintf("unchanged=%v", harness.ReconcileUnchanged("AuthPolicy"))
	})
}

// TestKuadrantStatusUntouched: with Kuadrant's RateLimitPolicy managed by one line (profile
// kuadrant, status none by default), a status written as Kuadrant's operator writes it (conditions
// on the policies, kuadrant.io/RateLimitPolicyAffected on the Gateway) stays untouched while
// Gateways and routes change, and the API server serves no status write on those policies. Switched
// to status full at runtime, Precedent writes them; back to none, it stops again.
func TestKuadrantStatusUntouched(t *testing.T) {
	ns := harness.Namespace(t, c)
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	h.SetConfig(t, c, map[string]interface{}{"kinds": []interface{}{kuadrantKind("")}})
	harness.Apply(t, c, ns, gatewayAndRoute, routePolicy, kuadrantLimits)
	// The AuthPolicy beside them (status full) tells when the reconciler has seen the topology.
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
	kuadrantStatus(t, ns, "gw-rlp")
	kuadrantStatus(t, ns, "route-rlp")
	kuadrantAffected(t, ns)
	want := statuses(t, ns)
	writes := kuadrantWrites(t)

	touchAndSettle(t, ns)
	harness.Consistently(t, 2*time.Second, "Kuadrant's statuses untouched, no status write", func() (bool, string) {
		got := statuses(t, ns)
		n := kuadrantWrites(t)
		return got == want && n == writes, fmt.Sprintf("%v status writes since the touches (want 0)\n%s", n-writes, cmp.Diff(want, got))
	})

	// Status full at runtime: Precedent writes its conditions (over Kuadrant's).
	h.SetConfig(t, c, map[string]interface{}{"kinds": []interface{}{kuadrantKind("full")}})
	harness.Eventually(t, "Precedent's Accepted on gw-rlp with status full", func() (bool, string) {
		conds, state, _ := conditionsOf("kuadrant.io/v1", "RateLimitPolicy", ns, "gw-rlp")
		return strings.HasPrefix(conds[reconcile.TypeAccepted].Message, "Policy "), state
	})
	if n := kuadrantWrites(t); n <= writes {
		t.Fatalf("status full: the API server counted no status write on the policies (%v)", n)
	}

	// Back to none: Kuadrant's operator writes its status again, and Precedent leaves it.
	h.SetConfig(t, c, map[string]interface{}{"kinds": []interface{}{kuadrantKind("none")}})
	kuadrantStatus(t, ns, "gw-rlp")
	kuadrantStatus(t, ns, "route-rlp")
	want, writes = statuses(t, ns), kuadrantWrites(t)
	touchAndSettle(t, ns)
	harness.Consistently(t, 2*time.Second, "Kuadrant's statuses untouched again with status none", func() (bool, string) {
		got := statuses(t, ns)
		n := kuadrantWrites(t)
		return got == want && n == writes, fmt.Sprintf("%v status writes since the touches (want 0)\n%s", n-writes, cmp.Diff(want, got))
	})
}

// TestPrunedAncestorsWrittenOnce: a kind managed with status full whose status schema has no
// ancestors (the API server prunes them). Its one policy is written exactly once, when it gets its
// conditions (that write teaches the reconciler that ancestors are pruned), and not again for three
// label changes of the Gateway and three of the route, each of which reaches the policy.
func TestPrunedAncestorsWrittenOnce(t *testing.T) {
	ns := harness.Namespace(t, c)
	const group = "noancestors.example.com"
	apiVersion := harness.InstallCRDCopy(t, c, "ratelimitpolicy.yaml", group, harness.WithoutStatusAncestors)
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	h.SetConfig(t, c, map[string]interface{}{"kinds": []interface{}{harness.LimitsKind(group)}})
	harness.Apply(t, c, ns, gatewayAndRoute, routePolicy)
	// Once the AuthPolicy on the route is enforced, the reconciler's source has the Gateway and the
	// route: the limits policy's first status is its final one.
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
	count := func() float64 {
		n, err := harness.StatusWrites(context.Background(), h.Env.Config, group, "ratelimitpolicies")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	harness.Apply(t, c, ns, harness.GatewayLimits(apiVersion, "atomic"))
	expectOf(t, apiVersion, "RateLimitPolicy", ns, "gw-limits", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
	if n := count() - before; n != 1 {
		t.Errorf("status writes to reach the policy's status: %v, want 1", n)
	}
	_, state, u := conditionsOf(apiVersion, "RateLimitPolicy", ns, "gw-limits")
	if _, found, _ := unstructured.NestedSlice(u.Object, "status", "ancestors"); found {
		t.Fatalf("the schema has no ancestors, yet the status holds them:\n%s", state)
	}

	touchAndSettle(t, ns)
	harness.Consistently(t, 2*time.Second, "no status write after the label changes", func() (bool, string) {
		n := count() - before
		return n == 1, fmt.Sprintf("%v status writes since the policy was created (want 1)", n)
	})
}
