package access_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/precedent-dev/precedent/test/harness"
)

// accessPolicy is an AccessPolicy p in {{ns}} with the given spec body (YAML, indented two spaces).
func accessPolicy(kind, spec string) string {
	apiVersion := "policy.precedent.dev/v1alpha1"
	if kind == "XAccessPolicy" {
		apiVersion = "agentic.prototype.x-k8s.io/v0alpha0"
	}
	return `
apiVersion: ` + apiVersion + `
kind: ` + kind + `
metadata: {name: p, namespace: "{{ns}}"}
spec:
` + strings.TrimPrefix(spec, "\n")
}

const (
	gatewayTarget = `  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
`
	backendTarget = `  targetRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: shop}]
`
	agentRule = `  rules: [{name: r, source: {type: ServiceAccount, serviceAccount: {name: agent}}}]
`
	extAuth = `{type: ExternalAuth, externalAuth: {protocol: GRPC, backendRef: {name: authz, port: 9000}}}`
)

// TestRejections writes each invalid AccessPolicy with a dry-run and for real: the API server must
// return Invalid with these causes, whether the CRD schema or the webhook caught it, and persist
// nothing.
func TestRejections(t *testing.T) {
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	tests := []struct {
		name string
		spec string
		want harness.Rejection
	}{
		{
			name: "target kind is neither Gateway nor the configured Backend kind (webhook)",
			spec: `  targetRefs: [{group: "", kind: Service, name: shop}]
` + agentRule,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.targetRefs[0].kind"}}, Message: `Unsupported value: "Service"`, Webhook: true},
		},
		{
			name: "targets of two kinds (CRD schema)",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: shop}
` + agentRule,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.targetRefs"}}, Message: "all targetRefs must have the same kind"},
		},
		{
			name: "the same target twice (CRD schema)",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
` + agentRule,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.targetRefs"}}, Message: "each target may appear once in targetRefs"},
		},
		{
			name: "no targets (CRD schema)",
			spec: `  targetRefs: []
` + agentRule,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.targetRefs"}}, Message: "should have at least 1 items"},
		},
		{
			name: "two rules with one name (CRD schema)",
			spec: gatewayTarget + `  rules:
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: a}}}
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: b}}}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueDuplicate, Field: "spec.rules[1]"}}, Message: "Duplicate value"},
		},
		{
			name: "InlineTools with externalAuth (CRD schema)",
			spec: gatewayTarget + `  rules:
  - name: r
    source: {type: ServiceAccount, serviceAccount: {name: a}}
    authorization: {type: InlineTools, tools: [x], externalAuth: {protocol: GRPC, backendRef: {name: authz}}}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.rules[0].authorization"}}, Message: "an InlineTools authorization sets tools and not externalAuth"},
		},
		{
			name: "two ExternalAuth rules (CRD schema)",
			spec: gatewayTarget + `  rules:
  - {name: a, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: ` + extAuth + `}
  - {name: b, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.rules"}}, Message: "a policy may hold at most one ExternalAuth rule"},
		},
		{
			name: "InlineTools and ExternalAuth in one policy while the cluster forbids it (webhook)",
			spec: gatewayTarget + `  rules:
  - {name: inline, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: {type: InlineTools, tools: [x]}}
  - {name: ext, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.rules[1].authorization.type"}}, Message: "InlineTools and ExternalAuth rules may not be mixed in one policy", Webhook: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			harness.AssertRejected(t, c, harness.ObjectIn(ns, accessPolicy("AccessPolicy", tt.spec)), tt.want)
		})
	}
}

// TestMixingSwitch flips access.allowMixedAuthorization in PrecedentConfig: the next admission obeys
// it, without restart.
func TestMixingSwitch(t *testing.T) {
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	mixed := func(name string) string {
		return strings.Replace(accessPolicy("AccessPolicy", gatewayTarget+`  rules:
  - {name: inline, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: {type: InlineTools, tools: [x]}}
  - {name: ext, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: `+extAuth+`}
`), "name: p,", "name: "+name+",", 1)
	}
	forbidden := harness.Rejection{Causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.rules[1].authorization.type"}}, Message: "InlineTools and ExternalAuth rules may not be mixed in one policy", Webhook: true}

	h.SetConfig(t, c, map[string]interface{}{"access": map[string]interface{}{"allowMixedAuthorization": true}})
	harness.Apply(t, c, ns, mixed("allowed"))

	h.SetConfig(t, c, map[string]interface{}{"access": map[string]interface{}{"allowMixedAuthorization": false}})
	harness.AssertRejected(t, c, harness.ObjectIn(ns, mixed("forbidden")), forbidden)

	h.SetConfig(t, c, map[string]interface{}{"access": map[string]interface{}{"allowMixedAuthorization": true}})
	harness.Apply(t, c, ns, mixed("allowed-again"))
}
