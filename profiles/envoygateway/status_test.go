package envoygateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

// TestAncestorsOtherClass: a route attached to a Gateway of Envoy Gateway's class and to one of
// another controller's has a route policy's ancestor only on the first (translator.go skips the
// Gateways of other classes; the translator's case securitypolicy-mixed-managed-unmanaged-route-parents).
func TestAncestorsOtherClass(t *testing.T) {
	docs := []string{`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}`, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}`, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: mine, namespace: shop}
spec: {gatewayClassName: eg, listeners: [{name: http, port: 80, protocol: HTTP}]}`, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: theirs, namespace: shop}
spec: {gatewayClassName: other, listeners: [{name: http, port: 80, protocol: HTTP}]}`, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: both, namespace: shop}
spec:
  parentRefs: [{name: mine, sectionName: http}, {name: theirs, sectionName: http}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]`, `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: authz, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: both}]
  authorization: {defaultAction: Deny}`}
	base := samples(t)
	var objs []*unstructured.Unstructured
	for _, d := range docs {
		objs = append(objs, object(t, d))
	}
	got, err := Profile{}.Ancestors(offlineOf(base.Settings, objs), kindOf(t, "SecurityPolicy"), policy.Ref{Namespace: "shop", Name: "authz"})
	if err != nil {
		t.Fatal(err)
	}
	want := []AncestorStatus{{Ancestor: "Gateway shop/mine#http", Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ancestors (-want +got):\n%s", d)
	}
}
