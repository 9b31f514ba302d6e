package access_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestXAccessPolicyChecked: kube-agentic-networking's XAccessPolicy is managed by configuration (the
// webhook's rule for xaccesspolicies in any version). The test CRD has no CEL rules, so every one of
// these is the webhook's rejection, with the same paths and messages as for AccessPolicy.
func TestXAccessPolicyChecked(t *testing.T) {
	c, _ := newClient()
	ns := namespace(t, c)
	tests := []struct {
		name string
		spec string
		want rejection
	}{
		{
			name: "targets of two kinds",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: shop}
` + agentRule,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.targetRefs[1].kind"}}, message: "all targetRefs must have the same kind", webhook: true},
		},
		{
			name: "the same target twice",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
` + agentRule,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueDuplicate, "spec.targetRefs[1]"}}, message: "Duplicate value", webhook: true},
		},
		{
			name: "rule name not a DNS label",
			spec: gatewayTarget + `  rules: [{name: Not_A_Label, source: {type: ServiceAccount, serviceAccount: {name: a}}}]
`,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.rules[0].name"}}, message: "RFC 1123 label", webhook: true},
		},
		{
			name: "two rules with one name",
			spec: gatewayTarget + `  rules:
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: a}}}
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: b}}}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueDuplicate, "spec.rules[1].name"}}, message: "Duplicate value", webhook: true},
		},
		{
			name: "two ExternalAuth rules",
			spec: gatewayTarget + `  rules:
  - {name: a, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: ` + extAuth + `}
  - {name: b, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeForbidden, "spec.rules[1].authorization.type"}}, message: "at most one ExternalAuth rule", webhook: true},
		},
		{
			name: "InlineTools and ExternalAuth in one policy",
			spec: gatewayTarget + `  rules:
  - {name: inline, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: {type: InlineTools, tools: [x]}}
  - {name: ext, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeForbidden, "spec.rules[1].authorization.type"}}, message: "may not be mixed in one policy", webhook: true},
		},
		{
			name: "ExternalAuth with tools",
			spec: gatewayTarget + `  rules:
  - name: r
    source: {type: ServiceAccount, serviceAccount: {name: a}}
    authorization: {type: ExternalAuth, tools: [x], externalAuth: {protocol: GRPC, backendRef: {name: authz}}}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeForbidden, "spec.rules[0].authorization.tools"}}, message: "tools may be set only when type is InlineTools", webhook: true},
		},
		{
			name: "SPIFFE source that is not a SPIFFE ID",
			spec: gatewayTarget + `  rules: [{name: r, source: {type: SPIFFE, spiffe: "https://example.com/agent"}}]
`,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.rules[0].source.spiffe"}}, message: "spiffe://", webhook: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRejected(t, c, objectIn(ns, accessPolicy("XAccessPolicy", tt.spec)), tt.want)
		})
	}
}

// TestXAccessPolicyProjected: XAccessPolicies project against each other like AccessPolicies, and
// each kind only against its own: they are two implementations' policies.
func TestXAccessPolicyProjected(t *testing.T) {
	c, rec := newClient()
	ns := namespace(t, c)
	createAll(t, c, ns, topology)
	createAll(t, c, ns, grant("XAccessPolicy", "backend-pol", "shop", "x", "y"))
	dryRunWarnings(t, c, rec, objectIn(ns, grant("XAccessPolicy", "gw-pol", "gw", "x")),
		[]string{unreachable(ns, "y", "no gateway rule allows it")})
	warningsOf(t, c, rec, objectIn(ns, grant("AccessPolicy", "gw-pol", "gw", "x")), nil)
	warningsOf(t, c, rec, objectIn(ns, grant("XAccessPolicy", "gw-pol", "gw", "x")),
		[]string{unreachable(ns, "y", "no gateway rule allows it")})
}
