package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const header = `apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: pol, namespace: shop, creationTimestamp: "2026-04-01T10:00:00Z"}
`

const gatewayTarget = `  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
`

const agentRule = `  rules:
  - name: agent
    source: {type: ServiceAccount, serviceAccount: {name: agent}}
    authorization: {type: InlineTools, tools: [search]}
`

func TestParse(t *testing.T) {
	got, errs := Parse(decodeYAML(t, header+`spec:
  targetRefs:
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: mcp}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: mcp, sectionName: http}
  rules:
  - name: agent
    source: {type: ServiceAccount, serviceAccount: {name: agent}}
    authorization: {type: InlineTools, tools: [search, fetch]}
  - name: other
    source: {type: ServiceAccount, serviceAccount: {namespace: ops, name: admin}}
  - name: mesh
    source: {type: SPIFFE, spiffe: "spiffe://example.org/ns/x/sa/y"}
    authorization: {type: InlineTools, tools: []}
`), DefaultSettings())
	if len(errs) > 0 {
		t.Fatalf("Parse: %v", errs)
	}
	want := Policy{
		Namespace: "shop", Name: "pol", key: "shop/pol", CreationTimestamp: time.Date(2026, 4, 1, 10, 0, 0, 0, time.Local),
		Targets: []TargetRef{beRef("mcp"), {Group: DefaultBackendGroup, Kind: DefaultBackendKind, Name: "mcp", SectionName: "http"}},
		Rules: []Rule{
			inline("agent", sa("shop/agent"), "search", "fetch"),
			anyTool("other", sa("ops/admin")),
			inline("mesh", spiffe("spiffe://example.org/ns/x/sa/y")),
		},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Policy{}), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
	}
	if got.Level() != LevelBackend {
		t.Errorf("Level() = %s, want backend", got.Level())
	}
}

func TestValidate(t *testing.T) {
	mixed := DefaultSettings()
	mixed.AllowMixedAuthorization = true
	custom := Settings{BackendGroup: "example.com", BackendKind: "MCPServer"}
	tests := []struct {
		name     string
		doc      string
		settings *Settings
		want     []string
	}{{
		name: "valid gateway policy",
		doc:  header + "spec:\n" + gatewayTarget + agentRule,
	}, {
		name: "missing spec",
		doc:  header,
		want: []string{"spec: Required value: set spec.targetRefs and spec.rules"},
	}, {
		name: "spec of the wrong type",
		doc:  header + "spec: [1]\n",
		want: []string{`spec: Invalid value: "list": must be an object with targetRefs and rules`},
	}, {
		name: "no targetRefs",
		doc:  header + "spec:\n  targetRefs: []\n" + agentRule,
		want: []string{"spec.targetRefs: Required value: add 1 to 10 target references, each a Gateway or a XBackend"},
	}, {
		name: "targetRefs of the wrong type",
		doc:  header + "spec:\n  targetRefs: gw\n" + agentRule,
		want: []string{`spec.targetRefs: Invalid value: "string": must be a list: add 1 to 10 target references, each a Gateway or a XBackend`},
	}, {
		name: "more than 10 targetRefs",
		doc: header + "spec:\n  targetRefs:\n" + func() string {
			s := ""
			for _, n := range "abcdefghijk" {
				s += "  - {group: gateway.networking.k8s.io, kind: Gateway, name: " + string(n) + "}\n"
			}
			return s
		}() + agentRule,
		want: []string{"spec.targetRefs: Too many: 11: must have at most 10 items"},
	}, {
		name: "target kind not allowed, and not counted as another kind",
		doc: header + `spec:
  targetRefs:
  - {group: '', kind: Service, name: svc}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: mcp}
` + agentRule,
		want: []string{
			`spec.targetRefs[0].kind: Unsupported value: "Service": supported values: "Gateway", "XBackend"`,
			`spec.targetRefs[2].kind: Invalid value: "XBackend": all targetRefs must have the same kind`,
		},
	}, {
		name: "gateway of the wrong group",
		doc:  header + "spec:\n  targetRefs: [{group: example.com, kind: Gateway, name: gw}]\n" + agentRule,
		want: []string{`spec.targetRefs[0].group: Unsupported value: "example.com": supported values: "gateway.networking.k8s.io"`},
	}, {
		name: "backend without its group",
		doc:  header + "spec:\n  targetRefs: [{kind: XBackend, name: mcp}]\n" + agentRule,
		want: []string{`spec.targetRefs[0].group: Unsupported value: "": supported values: "agentic.prototype.x-k8s.io"`},
	}, {
		name:     "configured backend kind",
		doc:      header + "spec:\n  targetRefs: [{group: example.com, kind: MCPServer, name: mcp}]\n" + agentRule,
		settings: &custom,
	}, {
		name:     "default backend kind when another is configured",
		doc:      header + "spec:\n  targetRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: mcp}]\n" + agentRule,
		settings: &custom,
		want:     []string{`spec.targetRefs[0].kind: Unsupported value: "XBackend": supported values: "Gateway", "MCPServer"`},
	}, {
		name: "mixed target kinds",
		doc: header + `spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: mcp}
` + agentRule,
		want: []string{`spec.targetRefs[1].kind: Invalid value: "XBackend": all targetRefs must have the same kind`},
	}, {
		name: "duplicate target",
		doc: header + `spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
` + agentRule,
		want: []string{`spec.targetRefs[1]: Duplicate value: "Gateway/gw"`},
	}, {
		name: "namespace in a local target",
		doc:  header + "spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, namespace: infra}]\n" + agentRule,
		want: []string{"spec.targetRefs[0].namespace: Forbidden: a local target reference is in the policy's namespace: remove namespace"},
	}, {
		name: "target without name and with a bad sectionName",
		doc:  header + "spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, sectionName: Web_1}]\n" + agentRule,
		want: []string{
			"spec.targetRefs[0].name: Required value: set name to the target's name",
			`spec.targetRefs[0].sectionName: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		},
	}, {
		name: "target fields of the wrong type",
		doc:  header + "spec:\n  targetRefs: [{group: 1, kind: [Gateway], name: {a: b}}, 7]\n" + agentRule,
		want: []string{
			`spec.targetRefs[0].group: Invalid value: "number": must be a string`,
			`spec.targetRefs[0].kind: Invalid value: "list": must be a string`,
			`spec.targetRefs[0].name: Invalid value: "object": must be a string`,
			`spec.targetRefs[1]: Invalid value: "number": must be an object with group, kind and name`,
		},
	}, {
		name: "no rules",
		doc:  header + "spec:\n" + gatewayTarget,
		want: []string{"spec.rules: Required value: add 1 to 10 rules, each naming a source and what it may call"},
	}, {
		name: "more than 10 rules",
		doc: header + "spec:\n" + gatewayTarget + "  rules:\n" + func() string {
			s := ""
			for _, n := range "abcdefghijk" {
				s += "  - {name: " + string(n) + ", source: {type: ServiceAccount, serviceAccount: {name: a}}}\n"
			}
			return s
		}(),
		want: []string{"spec.rules: Too many: 11: must have at most 10 items"},
	}, {
		name: "rule names: missing, not a DNS label, duplicate",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - {source: {type: ServiceAccount, serviceAccount: {name: a}}}
  - {name: Agent_1, source: {type: ServiceAccount, serviceAccount: {name: a}}}
  - {name: agent, source: {type: ServiceAccount, serviceAccount: {name: a}}}
  - {name: agent, source: {type: ServiceAccount, serviceAccount: {name: a}}}
`,
		want: []string{
			"spec.rules[0].name: Required value: name the rule with a DNS label, unique in the policy",
			`spec.rules[1].name: Invalid value: "Agent_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			`spec.rules[3].name: Duplicate value: "agent"`,
		},
	}, {
		name: "rule of the wrong type",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [agent]\n",
		want: []string{`spec.rules[0]: Invalid value: "string": must be an object with name, source and authorization`},
	}, {
		name: "source missing and of the wrong type",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a}, {name: b, source: sa}]\n",
		want: []string{
			"spec.rules[0].source: Required value: set source.type to ServiceAccount or SPIFFE, with serviceAccount or spiffe",
			`spec.rules[1].source: Invalid value: "not an object": must be an object with type and serviceAccount or spiffe`,
		},
	}, {
		name: "source type unknown",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: User}}]\n",
		want: []string{`spec.rules[0].source.type: Unsupported value: "User": supported values: "ServiceAccount", "SPIFFE"`},
	}, {
		name: "ServiceAccount source without serviceAccount, with spiffe",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: ServiceAccount, spiffe: 'spiffe://x/y'}}]\n",
		want: []string{
			"spec.rules[0].source.spiffe: Forbidden: spiffe may be set only when type is SPIFFE: remove it or change type",
			"spec.rules[0].source.serviceAccount: Required value: set serviceAccount.name (and optionally namespace) for a ServiceAccount source",
		},
	}, {
		name: "ServiceAccount source without name, bad namespace",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: ServiceAccount, serviceAccount: {namespace: Shop}}}]\n",
		want: []string{
			"spec.rules[0].source.serviceAccount.name: Required value: set the ServiceAccount's name",
			`spec.rules[0].source.serviceAccount.namespace: Invalid value: "Shop": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
		},
	}, {
		name: "SPIFFE source without spiffe, with serviceAccount",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: SPIFFE, serviceAccount: {name: a}}}]\n",
		want: []string{
			"spec.rules[0].source.serviceAccount: Forbidden: serviceAccount may be set only when type is ServiceAccount: remove it or change type",
			"spec.rules[0].source.spiffe: Required value: set spiffe to a SPIFFE ID, spiffe://<trust-domain>/<path>",
		},
	}, {
		name: "SPIFFE source not a SPIFFE ID",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: SPIFFE, spiffe: 'https://example.org/x'}}]\n",
		want: []string{`spec.rules[0].source.spiffe: Invalid value: "https://example.org/x": must be a SPIFFE ID: spiffe://<trust-domain>/<path>`},
	}, {
		name: "authorization type unknown",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: SPIFFE, spiffe: 'spiffe://x/y'}, authorization: {type: Deny}}]\n",
		want: []string{`spec.rules[0].authorization.type: Unsupported value: "Deny": supported values: "InlineTools", "ExternalAuth"`},
	}, {
		name: "authorization without type",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: SPIFFE, spiffe: 'spiffe://x/y'}, authorization: {tools: [x]}}]\n",
		want: []string{"spec.rules[0].authorization.type: Required value: set type to InlineTools or ExternalAuth, or omit authorization to allow every tool"},
	}, {
		name: "InlineTools without tools, with externalAuth",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - name: a
    source: {type: SPIFFE, spiffe: 'spiffe://x/y'}
    authorization: {type: InlineTools, externalAuth: {protocol: GRPC, backendRef: {name: authz}}}
`,
		want: []string{
			"spec.rules[0].authorization.externalAuth: Forbidden: externalAuth may be set only when type is ExternalAuth: remove it or change type",
			"spec.rules[0].authorization.tools: Required value: list the tools this source may call ([] allows none)",
		},
	}, {
		name: "InlineTools with bad tool entries",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - name: a
    source: {type: SPIFFE, spiffe: 'spiffe://x/y'}
    authorization: {type: InlineTools, tools: [x, x, "", 3]}
`,
		want: []string{
			`spec.rules[0].authorization.tools[1]: Duplicate value: "x"`,
			"spec.rules[0].authorization.tools[2]: Required value: name the tool",
			`spec.rules[0].authorization.tools[3]: Invalid value: "number": must be a tool name`,
		},
	}, {
		name: "ExternalAuth with tools and without externalAuth",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - name: a
    source: {type: SPIFFE, spiffe: 'spiffe://x/y'}
    authorization: {type: ExternalAuth, tools: [x]}
`,
		want: []string{
			"spec.rules[0].authorization.tools: Forbidden: tools may be set only when type is InlineTools: remove them or change type",
			"spec.rules[0].authorization.externalAuth: Required value: set externalAuth to the authorization service (protocol and backendRef)",
		},
	}, {
		name: "ExternalAuth without protocol and backendRef",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - name: a
    source: {type: SPIFFE, spiffe: 'spiffe://x/y'}
    authorization: {type: ExternalAuth, externalAuth: {protocol: TCP}}
`,
		want: []string{
			`spec.rules[0].authorization.externalAuth.protocol: Unsupported value: "TCP": supported values: "HTTP", "GRPC"`,
			"spec.rules[0].authorization.externalAuth.backendRef: Required value: set backendRef to the authorization service",
		},
	}, {
		name: "two ExternalAuth rules",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - {name: a, source: {type: SPIFFE, spiffe: 'spiffe://x/a'}, authorization: {type: ExternalAuth, externalAuth: {protocol: GRPC, backendRef: {name: authz}}}}
  - {name: b, source: {type: SPIFFE, spiffe: 'spiffe://x/b'}, authorization: {type: ExternalAuth, externalAuth: {protocol: HTTP, backendRef: {name: authz}}}}
`,
		want: []string{"spec.rules[1].authorization.type: Forbidden: a policy may hold at most one ExternalAuth rule, and spec.rules[0] is one: move this rule to another policy"},
	}, {
		name: "InlineTools and ExternalAuth mixed",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - {name: a, source: {type: SPIFFE, spiffe: 'spiffe://x/a'}, authorization: {type: InlineTools, tools: [x]}}
  - {name: b, source: {type: SPIFFE, spiffe: 'spiffe://x/b'}, authorization: {type: ExternalAuth, externalAuth: {protocol: HTTP, backendRef: {name: authz}}}}
  - {name: c, source: {type: SPIFFE, spiffe: 'spiffe://x/c'}, authorization: {type: InlineTools, tools: [z]}}
`,
		want: []string{
			"spec.rules[1].authorization.type: Forbidden: InlineTools and ExternalAuth rules may not be mixed in one policy (spec.rules[0] is InlineTools): move this ExternalAuth rule to another policy",
			"spec.rules[2].authorization.type: Forbidden: InlineTools and ExternalAuth rules may not be mixed in one policy (spec.rules[1] is ExternalAuth): move this InlineTools rule to another policy",
		},
	}, {
		name: "InlineTools and ExternalAuth mixed when the setting allows it",
		doc: header + "spec:\n" + gatewayTarget + `  rules:
  - {name: a, source: {type: SPIFFE, spiffe: 'spiffe://x/a'}, authorization: {type: InlineTools, tools: [x]}}
  - {name: b, source: {type: SPIFFE, spiffe: 'spiffe://x/b'}, authorization: {type: ExternalAuth, externalAuth: {protocol: HTTP, backendRef: {name: authz}}}}
`,
		settings: &mixed,
	}, {
		name: "authorization and source of the wrong type",
		doc:  header + "spec:\n" + gatewayTarget + "  rules: [{name: a, source: {type: 5}, authorization: [x]}]\n",
		want: []string{
			`spec.rules[0].source.type: Invalid value: "number": must be a string`,
			`spec.rules[0].authorization: Invalid value: "not an object": must be an object with type and tools or externalAuth, or omitted to allow every tool`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSettings()
			if tt.settings != nil {
				s = *tt.settings
			}
			var got []string
			for _, e := range Validate(decodeYAML(t, tt.doc), s) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateNeverPanics feeds values of every JSON type into every field.
func TestValidateNeverPanics(t *testing.T) {
	values := []interface{}{nil, "x", int64(1), 1.5, true, []interface{}{"x", int64(1), nil}, map[string]interface{}{"a": "b"}}
	paths := [][]string{
		{"spec"}, {"spec", "targetRefs"}, {"spec", "rules"},
	}
	for _, v := range values {
		for _, p := range paths {
			u := &unstructured.Unstructured{Object: map[string]interface{}{}}
			_ = unstructured.SetNestedField(u.Object, v, p...)
			Validate(u, DefaultSettings())
		}
		for _, key := range []string{"group", "kind", "name", "namespace", "sectionName"} {
			u := decodeYAML(t, header+"spec:\n"+gatewayTarget+agentRule)
			refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "targetRefs")
			refs[0].(map[string]interface{})[key] = v
			_ = unstructured.SetNestedSlice(u.Object, refs, "spec", "targetRefs")
			Validate(u, DefaultSettings())
		}
		for _, key := range []string{"name", "source", "authorization"} {
			u := decodeYAML(t, header+"spec:\n"+gatewayTarget+agentRule)
			rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
			rules[0].(map[string]interface{})[key] = v
			_ = unstructured.SetNestedSlice(u.Object, rules, "spec", "rules")
			Validate(u, DefaultSettings())
		}
	}
}
