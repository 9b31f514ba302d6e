package effective_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// load builds the snapshot of one kind from manifest files.
func load(t testing.TB, kind string, paths ...string) *effective.Snapshot {
	t.Helper()
	objs, err := manifest.Read(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return snapshotOf(t, kind, objs)
}

func snapshotOf(t testing.TB, kind string, objs []manifest.Object) *effective.Snapshot {
	t.Helper()
	reg := policy.NewRegistry(policy.Builtin()...)
	us := make([]*unstructured.Unstructured, len(objs))
	for i := range objs {
		us[i] = objs[i].Unstructured
	}
	inv := inventory.Build(reg, us, nil)
	k, _ := reg.ByName(kind)
	for _, it := range inv.Items(k) {
		if len(it.Errs) > 0 {
			t.Fatalf("policy %s: %v", it.Policy.Ref, it.Errs.ToAggregate())
		}
	}
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	return effective.NewSnapshot(k, topology.Build(inv.Topology), inv.Views(k), ev)
}

func spec(t testing.TB, y string) map[string]interface{} {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

const (
	ruleA  = "{apiKey: {selector: {matchLabels: {app: gw}}}}"
	ruleB  = "{opa: {rego: allow = true}}"
	ruleB2 = `{opa: {rego: allow = input.user == "shop"}}`
	ruleC  = "{patternMatching: {patterns: [{selector: request.path, operator: eq, value: /cart}]}}"
)

// TestRFCExamples reproduces each example of the Kuadrant D/O RFC (config/samples/rfc) and the two
// GEP-713 examples (config/samples/gep713): the whole effective policy of the route and its provenance.
func TestRFCExamples(t *testing.T) {
	tests := []struct {
		name    string
		dir     string
		kind    string
		spec    string
		sources map[string]string
	}{
		{
			name: "A1 atomic defaults replaced entirely by a lower policy", dir: "a1", kind: "AuthPolicy",
			spec:    "rules: {authorization: {c: " + ruleC + "}}",
			sources: map[string]string{"authorization.c": "a1/route-policy"},
		},
		{
			name: "B1 merge defaults add the rules the lower policy lacks", dir: "b1", kind: "AuthPolicy",
			spec:    "rules: {authentication: {a: " + ruleA + "}, authorization: {b: " + ruleB + ", c: " + ruleC + "}}",
			sources: map[string]string{"authentication.a": "b1/gw-policy", "authorization.b": "b1/gw-policy", "authorization.c": "b1/route-policy"},
		},
		{
			name: "B2 merge defaults keep lower rule on conflict", dir: "b2", kind: "AuthPolicy",
			spec:    "rules: {authentication: {a: " + ruleA + "}, authorization: {b: " + ruleB2 + ", c: " + ruleC + "}}",
			sources: map[string]string{"authentication.a": "b2/gw-policy", "authorization.b": "b2/route-policy", "authorization.c": "b2/route-policy"},
		},
		{
			name: "C1 atomic overrides replace the lower policy entirely", dir: "c1", kind: "AuthPolicy",
			spec:    "rules: {authentication: {a: " + ruleA + "}, authorization: {b: " + ruleB + "}}",
			sources: map[string]string{"authentication.a": "c1/gw-policy", "authorization.b": "c1/gw-policy"},
		},
		{
			name: "D1 merge overrides add to the lower policy", dir: "d1", kind: "AuthPolicy",
			spec:    "rules: {authentication: {a: " + ruleA + "}, authorization: {b: " + ruleB + ", c: " + ruleC + "}}",
			sources: map[string]string{"authentication.a": "d1/gw-policy", "authorization.b": "d1/gw-policy", "authorization.c": "d1/route-policy"},
		},
		{
			name: "D2 merge overrides win on conflict", dir: "d2", kind: "AuthPolicy",
			spec:    "rules: {authentication: {a: " + ruleA + "}, authorization: {b: " + ruleB + ", c: " + ruleC + "}}",
			sources: map[string]string{"authentication.a": "d2/gw-policy", "authorization.b": "d2/gw-policy", "authorization.c": "d2/route-policy"},
		},
		{
			name: "E1 constraint met: the lower value stands", dir: "e1", kind: "RateLimitPolicy",
			spec:    "limits: {x: {rates: [{limit: 50, window: 1m}]}}",
			sources: map[string]string{"x": "e1/route-policy"},
		},
		{
			name: "E2 constraint violated: the value is clipped", dir: "e2", kind: "RateLimitPolicy",
			spec:    "limits: {x: {rates: [{limit: 100, window: 1m}]}}",
			sources: map[string]string{"x": "e2/gw-policy"},
		},
		{
			name: "E3 merge granularity: clipping replaces the whole rule, counters are lost", dir: "e3", kind: "RateLimitPolicy",
			spec:    "limits: {x: {rates: [{limit: 100, window: 1m}]}}",
			sources: map[string]string{"x": "e3/gw-policy"},
		},
		{
			name: "F1 unset removes an inherited default", dir: "f1", kind: "AuthPolicy",
			spec:    "rules: {authentication: {a: " + ruleA + "}, authorization: {c: " + ruleC + "}}",
			sources: map[string]string{"authentication.a": "f1/gw-policy", "authorization.c": "f1/route-policy"},
		},
		{
			name: "GEP-713 cdn: gateway override and defaults, route default", dir: "../gep713/cdn.yaml", kind: "TrafficPolicy",
			spec: "cdn: {enabled: true, cachePolicy: {includeHost: true, includeProtocol: true, includeQueryString: false}}",
			sources: map[string]string{"cdn.enabled": "gep713-cdn/gateway-cdn", "cdn.cachePolicy.includeHost": "gep713-cdn/gateway-cdn",
				"cdn.cachePolicy.includeProtocol": "gep713-cdn/gateway-cdn", "cdn.cachePolicy.includeQueryString": "gep713-cdn/route-cdn"},
		},
		{
			name: "GEP-713 timeouts: gateway override beats route default, route default beats gateway default", dir: "../gep713/timeouts.yaml", kind: "TrafficPolicy",
			spec: "timeouts: {drain: 10s, connect: 2s, request: 30s}",
			sources: map[string]string{"timeouts.drain": "gep713-timeouts/gateway-timeouts", "timeouts.connect": "gep713-timeouts/route-timeouts",
				"timeouts.request": "gep713-timeouts/gateway-timeouts"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := load(t, tt.kind, "../../config/samples/rfc/"+tt.dir)
			items := s.Items(s.Reached(nil))
			if len(items) != 1 {
				t.Fatalf("got %d items, want 1: %+v", len(items), items)
			}
			got := items[0]
			want := effective.Item{Kind: tt.kind, Gateway: got.Gateway, Route: got.Route, Spec: spec(t, tt.spec), Sources: tt.sources}
			if got.Route == "" {
				t.Fatalf("item has no route: %+v", got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("effective policy (-want +got):\n%s", diff)
			}
		})
	}
}
