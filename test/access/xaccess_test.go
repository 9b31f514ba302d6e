package access_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestXAccessPolicyChecked: kube-agentic-networking's XAccessPolicy is managed by configuration (the
// webhook's rule for xaccesspolicies in any version). The test CRD has no CEL rules, so every one of
// these is the webhook's rejection, with the same paths and messages as for AccessPolicy.
func TestXAccessPolicyChecked(t *testing.T) {
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	tests := []struct {
		name string
		spec string
		want harness.Rejection
	}{
		{
			name: "targets of two kinds",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: shop}
` + agentRule,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.targetRefs[1].kind"}}, Message: "all targetRefs must have the same kind", Webhook: true},
		},
		{
			name: "the same target twice",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
` + agentRule,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueDuplicate, Field: "spec.targetRefs[1]"}}, Message: "Duplicate value", Webhook: true},
		},
		{
			name: "rule name not a DNS label",
			spec: gatewayTarget + `  rules: [{name: Not_A_Label, source: {type: ServiceAccount, serviceAccount: {name: a}}}]
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.rules[0].name"}}, Message: "RFC 1123 label", Webhook: true},
		},
		{
			name: "two rules with one name",
			spec: gatewayTarget + `  rules:
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: a}}}
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: b}}}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueDuplicate, Field: "spec.rules[1].name"}}, Message: "Duplicate value", Webhook: true},
		},
		{
			name: "two ExternalAuth rules",
			spec: gatewayTarget + `  rules:
  - {name: a, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: ` + extAuth + `}
  - {name: b, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.rules[1].authorization.type"}}, Message: "at most one ExternalAuth rule", Webhook: true},
		},
		{
			name: "InlineTools and ExternalAuth in one policy",
			spec: gatewayTarget + `  rules:
  - {name: inline, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: {type: InlineTools, tools: [x]}}
  - {name: ext, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.rules[1].authorization.type"}}, Message: "may not be mixed in one policy", Webhook: true},
		},
		{
			name: "ExternalAuth with tools",
			spec: gatewayTarget + `  rules:
  - name: r
    source: {type: ServiceAccount, serviceAccount: {name: a}}
    authorization: {type: ExternalAuth, tools: [x], externalAuth: {protocol: GRPC, backendRef: {name: authz}}}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.rules[0].authorization.tools"}}, Message: "tools may be set only when type is InlineTools", Webhook: true},
		},
		{
			name: "SPIFFE source that is not a SPIFFE ID",
			spec: gatewayTarget + `  rules: [{name: r, source: {type: SPIFFE, spiffe: "https://example.com/agent"}}]
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.rules[0].source.spiffe"}}, Message: "spiffe://", Webhook: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			harness.AssertRejected(t, c, harness.ObjectIn(ns, accessPolicy("XAccessPolicy", tt.spec)), tt.want)
		})
	}
}

// TestXAccessPolicyProjected: XAccessPolicies project against each other like AccessPolicies, and
// each kind only against its own: they are two implementations' policies.
func TestXAccessPolicyProjected(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	harness.Apply(t, c, ns, grant("XAccessPolicy", "backend-pol", "shop", "x", "y"))
	harness.DryRunWarnings(t, c, rec, harness.ObjectIn(ns, grant("XAccessPolicy", "gw-pol", "gw", "x")),
		[]string{unreachable(ns, "y", "no gateway rule allows it")})
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, grant("AccessPolicy", "gw-pol", "gw", "x")), nil)
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, grant("XAccessPolicy", "gw-pol", "gw", "x")),
		[]string{unreachable(ns, "y", "no gateway rule allows it")})
}
