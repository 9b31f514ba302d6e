package reconcile_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/precedent-dev/precedent/internal/reconcile"
	"github.com/precedent-dev/precedent/test/harness"
)

// gatewayOverrideThatUnsets overrides route-policy's rule b and unsets a rule: Invalid once the
// cluster switches unset off.
const gatewayOverrideThatUnsets = `
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
  unset: [authorization.q]
`

// TestInvalidPolicyHoldsNothing: an Invalid policy beside valid ones holds nothing, in the status
// and in the views alike. A Gateway override becomes Invalid when the cluster switches unset off:
// the route policy it overrode is Enforced again, the Gateway is no longer Affected by it, and
// `kubectl precedent effective` shows the route policy's rule in effect; switched back on, both
// say the override holds again.
func TestInvalidPolicyHoldsNothing(t *testing.T) {
	bin := pluginDir(t)
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute)
	harness.Apply(t, c, ns, routePolicy, gatewayOverrideThatUnsets)
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })

	effective := func() string {
		t.Helper()
		kubectl := exec.Command("kubectl", "precedent", "effective", "--kind", "AuthPolicy", "--kubeconfig", h.Kubeconfig, "-n", ns)
		kubectl.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := kubectl.Output()
		if err != nil {
			t.Fatalf("kubectl precedent effective: %v\n%s", err, stderr(err))
		}
		return string(out)
	}
	ruleFrom := func(out, policy string) bool {
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && f[len(f)-2] == "authorization.b" && f[len(f)-1] == ns+"/"+policy {
				return true
			}
		}
		return false
	}

	overridden := func() {
		t.Helper()
		expect(t, ns, "gw-policy", reconcile.TypeAccepted, metav1.ConditionTrue, "Accepted", "Policy has been accepted")
		expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionFalse, "Overridden", "Policy has been overridden by "+ns+"/gw-policy")
		expectAffected(t, ns, metav1.ConditionTrue, "Affected", "The object is affected by AuthPolicy "+ns+"/gw-policy")
		if out := effective(); !ruleFrom(out, "gw-policy") {
			t.Fatalf("the status says gw-policy overrides authorization.b, effective does not:\n%s", out)
		}
	}
	overridden()

	h.SetConfig(t, c, map[string]interface{}{"unsetEnabled": false})
	expect(t, ns, "gw-policy", reconcile.TypeAccepted, metav1.ConditionFalse, "Invalid",
		"Policy is invalid: spec.unset: Forbidden: unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset")
	expect(t, ns, "route-policy", reconcile.TypeEnforced, metav1.ConditionTrue, "Enforced", "Policy has been successfully enforced")
	expectAffected(t, ns, metav1.ConditionFalse, "Unaffected", "The object is not affected by any AuthPolicy")
	if out := effective(); !ruleFrom(out, "route-policy") {
		t.Fatalf("the status says route-policy is enforced, effective does not:\n%s", out)
	}

	h.SetConfig(t, c, map[string]interface{}{"unsetEnabled": true})
	overridden()
}
