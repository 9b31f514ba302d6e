package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Builders shared by the tests and the benchmarks.

var t0 = time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)

// at returns t0 plus n minutes: T1 < T2 as at(1) < at(2).
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

func sa(key string) Principal    { return Principal{ServiceAccount: key} }
func spiffe(id string) Principal { return Principal{SPIFFE: id} }
func gwRef(name string) TargetRef {
	return TargetRef{Group: GatewayGroup, Kind: GatewayKind, Name: name}
}
func beRef(name string) TargetRef {
	return TargetRef{Group: DefaultBackendGroup, Kind: DefaultBackendKind, Name: name}
}

func policy(key string, created time.Time, target TargetRef, rules ...Rule) Policy {
	ns, name, _ := strings.Cut(key, "/")
	return Policy{Namespace: ns, Name: name, CreationTimestamp: created, Targets: []TargetRef{target}, Rules: rules, key: key}
}

func inline(name string, src Principal, tools ...string) Rule {
	if tools == nil {
		tools = []string{}
	}
	return Rule{Name: name, Source: src, Type: InlineTools, Tools: tools}
}

func anyTool(name string, src Principal) Rule {
	return Rule{Name: name, Source: src, Type: AllTools}
}

func external(name string, src Principal) Rule {
	return Rule{Name: name, Source: src, Type: ExternalAuth}
}

func withCombine(c string) Settings {
	s := DefaultSettings()
	s.Combine = c
	return s
}

// decodeYAML decodes one YAML document into an unstructured object.
func decodeYAML(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("test YAML: %v", err)
	}
	return &unstructured.Unstructured{Object: m}
}

// generate builds a realistic cluster: one Gateway "gw/edge" with gatewayPolicies policies, and
// backends Backends behind it, each with one Backend-level policy of two rules. Every policy grants
// tools to ServiceAccounts of a few agent namespaces.
func generate(gatewayPolicies, backends int) (gw []Policy, be []Policy, topo Topology) {
	for i := 0; i < gatewayPolicies; i++ {
		gw = append(gw, policy(fmt.Sprintf("gw/gw-policy-%03d", i), at(i), gwRef("edge"),
			inline("agents", sa(fmt.Sprintf("agents-%d/agent", i%5)), "search", "fetch", fmt.Sprintf("tool-%d", i)),
			inline("admins", sa("ops/admin"), "search", "fetch", "delete"),
		))
	}
	for i := 0; i < backends; i++ {
		name := fmt.Sprintf("mcp-%04d", i)
		ns := fmt.Sprintf("team-%d", i%20)
		be = append(be, policy(ns+"/"+name+"-policy", at(i), beRef(name),
			inline("agents", sa(fmt.Sprintf("agents-%d/agent", i%5)), "search", fmt.Sprintf("tool-%d", i%70)),
			inline("admins", sa("ops/admin"), "delete", "purge"),
		))
		topo.Link("gw/edge", ns+"/"+name)
	}
	return gw, be, topo
}
