package access_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	c, _ := newClient()
	ns := namespace(t, c)
	tests := []struct {
		name string
		spec string
		want rejection
	}{
		{
			name: "target kind is neither Gateway nor the configured Backend kind (webhook)",
			spec: `  targetRefs: [{group: "", kind: Service, name: shop}]
` + agentRule,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueNotSupported, "spec.targetRefs[0].kind"}}, message: `Unsupported value: "Service"`, webhook: true},
		},
		{
			name: "targets of two kinds (CRD schema)",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: shop}
` + agentRule,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.targetRefs"}}, message: "all targetRefs must have the same kind"},
		},
		{
			name: "the same target twice (CRD schema)",
			spec: `  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
` + agentRule,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.targetRefs"}}, message: "each target may appear once in targetRefs"},
		},
		{
			name: "no targets (CRD schema)",
			spec: `  targetRefs: []
` + agentRule,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.targetRefs"}}, message: "should have at least 1 items"},
		},
		{
			name: "two rules with one name (CRD schema)",
			spec: gatewayTarget + `  rules:
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: a}}}
  - {name: r, source: {type: ServiceAccount, serviceAccount: {name: b}}}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueDuplicate, "spec.rules[1]"}}, message: "Duplicate value"},
		},
		{
			name: "InlineTools with externalAuth (CRD schema)",
			spec: gatewayTarget + `  rules:
  - name: r
    source: {type: ServiceAccount, serviceAccount: {name: a}}
    authorization: {type: InlineTools, tools: [x], externalAuth: {protocol: GRPC, backendRef: {name: authz}}}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.rules[0].authorization"}}, message: "an InlineTools authorization sets tools and not externalAuth"},
		},
		{
			name: "two ExternalAuth rules (CRD schema)",
			spec: gatewayTarget + `  rules:
  - {name: a, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: ` + extAuth + `}
  - {name: b, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeFieldValueInvalid, "spec.rules"}}, message: "a policy may hold at most one ExternalAuth rule"},
		},
		{
			name: "InlineTools and ExternalAuth in one policy while the cluster forbids it (webhook)",
			spec: gatewayTarget + `  rules:
  - {name: inline, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: {type: InlineTools, tools: [x]}}
  - {name: ext, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: ` + extAuth + `}
`,
			want: rejection{causes: []cause{{metav1.CauseTypeForbidden, "spec.rules[1].authorization.type"}}, message: "InlineTools and ExternalAuth rules may not be mixed in one policy", webhook: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRejected(t, c, objectIn(ns, accessPolicy("AccessPolicy", tt.spec)), tt.want)
		})
	}
}

// TestMixingSwitch flips access.allowMixedAuthorization in PrecedentConfig: the next admission obeys
// it, without restart.
func TestMixingSwitch(t *testing.T) {
	c, _ := newClient()
	ns := namespace(t, c)
	t.Cleanup(func() { setConfig(t, c, map[string]interface{}{}) })
	mixed := func(name string) string {
		return strings.Replace(accessPolicy("AccessPolicy", gatewayTarget+`  rules:
  - {name: inline, source: {type: ServiceAccount, serviceAccount: {name: a}}, authorization: {type: InlineTools, tools: [x]}}
  - {name: ext, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: `+extAuth+`}
`), "name: p,", "name: "+name+",", 1)
	}
	forbidden := rejection{causes: []cause{{metav1.CauseTypeForbidden, "spec.rules[1].authorization.type"}}, message: "InlineTools and ExternalAuth rules may not be mixed in one policy", webhook: true}

	setConfig(t, c, map[string]interface{}{"access": map[string]interface{}{"allowMixedAuthorization": true}})
	createAll(t, c, ns, mixed("allowed"))

	setConfig(t, c, map[string]interface{}{"access": map[string]interface{}{"allowMixedAuthorization": false}})
	assertRejected(t, c, objectIn(ns, mixed("forbidden")), forbidden)

	setConfig(t, c, map[string]interface{}{"access": map[string]interface{}{"allowMixedAuthorization": true}})
	createAll(t, c, ns, mixed("allowed-again"))
}
