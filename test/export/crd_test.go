package export_test

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/test/harness"
)

// TestCRDRules: with neither webhook nor admission policy, the shipped CRDs' own rules (generated
// from the table of checks) reject invalid objects with the table's message for the check.
func TestCRDRules(t *testing.T) {
	kinds := map[string]policy.Kind{}
	for _, k := range policy.Builtin() {
		kinds[k.GVK.Kind] = k
	}
	ns := harness.Namespace(t, c)
	for _, tc := range []struct {
		name, check, kind, doc string
	}{
		{name: "bare rules with defaults", check: "do-bare-with-blocks", kind: "AuthPolicy", doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: bare-with-defaults, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  rules: {authorization: {a: {}}}
  defaults: {rules: {authorization: {b: {}}}}`},
		{name: "empty rate limit policy", check: "do-not-empty", kind: "RateLimitPolicy", doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: empty, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}`},
		{name: "traffic policy without default or override", check: "gep713-default-or-override", kind: "TrafficPolicy", doc: `
apiVersion: policy.precedent.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: neither, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chk, ok := checks.ByID(tc.check)
			if !ok || chk.CEL == nil {
				t.Fatalf("no check %s with CEL in the table", tc.check)
			}
			want := chk.CEL(kinds[tc.kind])[0].Message
			err := c.Create(context.Background(), harness.ObjectIn(ns, tc.doc), client.DryRunAll)
			msg := harness.ErrString(err)
			if err == nil || !strings.Contains(msg, want) || strings.Contains(msg, "ValidatingAdmissionPolicy") || strings.Contains(msg, "webhook") {
				t.Errorf("create: %s\nwant the CRD to reject it with %q", msg, want)
			}
		})
	}
}
