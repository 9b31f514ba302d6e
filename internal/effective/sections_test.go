package effective_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/manifest"
)

// TestSections covers listener-level (Gateway sectionName) and rule-level (HTTPRoute sectionName)
// policies: once one listener of a Gateway (or one rule of a route) has a policy, items name
// every listener (or rule) of it, and the section policies rank between their neighbours.
func TestSections(t *testing.T) {
	objs, err := manifest.Decode("inline", []byte(sectionsYAML))
	if err != nil {
		t.Fatal(err)
	}
	s := snapshotOf(t, "RateLimitPolicy", objs)
	got := s.Items(s.Reached(nil))
	want := []effective.Item{
		{Kind: "RateLimitPolicy", Gateway: "ns/gw", Listener: "admin", Route: "ns/route", Rule: "browse",
			Spec: map[string]interface{}{"limits": map[string]interface{}{"l": "listener", "r": "route"}}, Sources: map[string]string{"l": "ns/listener", "r": "ns/route"}},
		{Kind: "RateLimitPolicy", Gateway: "ns/gw", Listener: "http", Route: "ns/route", Rule: "browse",
			Spec: map[string]interface{}{"limits": map[string]interface{}{"r": "route"}}, Sources: map[string]string{"r": "ns/route"}},
		{Kind: "RateLimitPolicy", Gateway: "ns/gw", Listener: "admin", Route: "ns/route", Rule: "pay",
			Spec: map[string]interface{}{"limits": map[string]interface{}{"l": "listener", "r": "rule"}}, Sources: map[string]string{"l": "ns/listener", "r": "ns/rule"}},
		{Kind: "RateLimitPolicy", Gateway: "ns/gw", Listener: "http", Route: "ns/route", Rule: "pay",
			Spec: map[string]interface{}{"limits": map[string]interface{}{"r": "rule"}}, Sources: map[string]string{"r": "ns/rule"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

const sectionsYAML = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: c
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: admin, port: 8080, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules:
  - name: browse
  - name: pay
---
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: listener, namespace: ns, creationTimestamp: "2024-01-01T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: admin}
  defaults: {strategy: merge, limits: {l: listener, r: listener}}
---
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: route, namespace: ns, creationTimestamp: "2024-01-02T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  defaults: {strategy: merge, limits: {r: route}}
---
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: rule, namespace: ns, creationTimestamp: "2024-01-03T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route, sectionName: pay}
  limits: {r: rule}
`
