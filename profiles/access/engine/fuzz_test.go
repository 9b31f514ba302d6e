package engine

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// FuzzParse checks that no input makes Parse panic, and that a policy it accepts evaluates.
func FuzzParse(f *testing.F) {
	f.Add(header + "spec:\n" + gatewayTarget + agentRule)
	f.Add(header + `spec:
  targetRefs: [{group: agentic.prototype.x-k8s.io, kind: XBackend, name: payment-service}]
  rules:
  - {name: a, source: {type: SPIFFE, spiffe: 'spiffe://x/a'}, authorization: {type: InlineTools, tools: []}}
  - {name: b, source: {type: ServiceAccount, serviceAccount: {name: b}}, authorization: {type: ExternalAuth, externalAuth: {protocol: HTTP, backendRef: {name: authz}}}}
`)
	f.Add(header + "spec: {targetRefs: [{kind: Gateway}, 1], rules: [{name: x, source: {type: SPIFFE}}]}\n")
	f.Fuzz(func(t *testing.T, doc string) {
		var m map[string]interface{}
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil || m == nil {
			return
		}
		p, errs := Parse(&unstructured.Unstructured{Object: m}, DefaultSettings())
		if len(errs) > 0 {
			return
		}
		for _, r := range p.Rules {
			Evaluate(Request{Source: r.Source, Tool: "x"}, []Policy{p}, []Policy{p}, DefaultSettings())
		}
	})
}
