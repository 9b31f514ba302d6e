package envoygateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
)

// TestAncestors: the status.ancestors entries Envoy Gateway writes for a policy, as predicted: a
// route policy's ancestors are the route's parentRefs; the newer of two policies on one route is
// Conflicted there; a missing sectionName of an existing Gateway is TargetNotFound on the
// Gateway's ancestor for that section (validate.go validateGatewayListenerSectionName); a value
// the translator refuses makes the policy Invalid on every ancestor.
func TestAncestors(t *testing.T) {
	accepted := profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"}
	extra := []string{`apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: typo, namespace: envoy-gateway-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: eg, sectionName: htp}]
  http2: {initialStreamWindowSize: 64Ki}`, `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: slow, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}]
  bandwidthLimit: {request: {limit: {value: 1000, unit: Second}}}`}
	for _, tc := range []struct {
		name, kind string
		ref        policy.Ref
		want       []AncestorStatus
	}{
		{"the older policy on a route is accepted on the route's parent", "SecurityPolicy", policy.Ref{Namespace: "shop", Name: "shelf-cors"},
			[]AncestorStatus{{Ancestor: "Gateway envoy-gateway-system/eg#http", Accepted: accepted}}},
		{"the newer one is Conflicted", "SecurityPolicy", policy.Ref{Namespace: "shop", Name: "shelf-cors-v2"},
			[]AncestorStatus{{Ancestor: "Gateway envoy-gateway-system/eg#http", Accepted: profile.Condition{Status: "False", Reason: "Conflicted", Message: "shop/shelf-cors holds HTTPRoute shop/shelf"}}}},
		{"a missing section is TargetNotFound on the Gateway's ancestor for it", "ClientTrafficPolicy", policy.Ref{Namespace: "envoy-gateway-system", Name: "typo"},
			[]AncestorStatus{{Ancestor: "Gateway envoy-gateway-system/eg#htp", Accepted: profile.Condition{Status: "False", Reason: "TargetNotFound",
				Message: "target Gateway envoy-gateway-system/eg#htp not found: Gateway envoy-gateway-system/eg has no section htp; Envoy Gateway writes Accepted=False (TargetNotFound) on the ancestor"}}}},
		{"a bandwidth under 1 KiB/s is Invalid everywhere", "BackendTrafficPolicy", policy.Ref{Namespace: "shop", Name: "slow"},
			[]AncestorStatus{{Ancestor: AnyAncestor, Accepted: profile.Condition{Status: "False", Reason: "Invalid",
				Message: `spec.bandwidthLimit.request.limit.value: Invalid value: "1k": below Envoy's minimum of 1 KiB/s; Envoy Gateway marks the policy Invalid`}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := samples(t, "conflict.yaml")
			for _, doc := range extra {
				in.Objects = append(in.Objects, object(t, doc))
			}
			got, err := Profile{}.Ancestors(in, kindOf(t, tc.kind), tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ancestors (-want +got):\n%s", d)
			}
		})
	}
}
