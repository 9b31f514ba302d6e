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

// TestAncestorsOverridden: Envoy Gateway's Overridden and Merged conditions, drawn per scope
// (helpers.go policyScopeGraph): a ListenerSet-wide policy is Overridden by a policy on one of its
// listeners though no route is there; a Gateway policy that one rule of a route merges into is
// not Overridden by another rule's policy that replaces it (the route is merged); a route policy
// is Overridden by a rule policy even when that one merges past it; a ClientTrafficPolicy on a
// Gateway is Overridden where it claims a ListenerSet of that Gateway itself.
func TestAncestorsOverridden(t *testing.T) {
	accepted := profile.Condition{Status: "True", Reason: "Accepted", Message: "Policy has been accepted"}
	topo := []string{`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: eg
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, port: 80, protocol: HTTP}]`, `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ext, namespace: shop}
spec:
  parentRef: {name: gw}
  listeners: [{name: ext-http, port: 8081, protocol: HTTP}]`, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: browse, backendRefs: [{name: svc, port: 80}]}, {name: pay, backendRefs: [{name: svc, port: 80}]}]`}
	btp := func(name, target string, extra string) string {
		return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name +
			", namespace: shop}\nspec:\n  targetRefs: [" + target + "]\n  loadBalancer: {type: Random}\n" + extra
	}
	for _, tc := range []struct {
		name, kind, policy string
		docs               []string
		want               []AncestorStatus
	}{
		{"a ListenerSet-wide policy under a policy on one of its listeners", "BackendTrafficPolicy", "wide", []string{
			btp("wide", "{group: gateway.networking.k8s.io, kind: ListenerSet, name: ext}", ""),
			btp("one", "{group: gateway.networking.k8s.io, kind: ListenerSet, name: ext, sectionName: ext-http}", "")},
			[]AncestorStatus{{Ancestor: "ListenerSet shop/ext", Accepted: accepted, Overridden: true}}},
		{"a Gateway policy a rule merges into and another rule replaces", "BackendTrafficPolicy", "gw", []string{
			btp("gw", "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}", ""),
			btp("browse", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart, sectionName: browse}", ""),
			btp("pay", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart, sectionName: pay}", "  mergeType: StrategicMerge\n")},
			[]AncestorStatus{{Ancestor: "Gateway shop/gw", Accepted: accepted, Merges: true}}},
		{"a route policy a rule policy merges past", "BackendTrafficPolicy", "route", []string{
			btp("gw", "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}", ""),
			btp("route", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}", ""),
			btp("pay", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart, sectionName: pay}", "  mergeType: StrategicMerge\n")},
			[]AncestorStatus{{Ancestor: "Gateway shop/gw", Accepted: accepted, Overridden: true}}},
		{"a ClientTrafficPolicy on a Gateway and on its ListenerSet", "ClientTrafficPolicy", "both", []string{`apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: both, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: ext}, {group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  tcpKeepalive: {probes: 5}`},
			[]AncestorStatus{{Ancestor: "Gateway shop/gw", Accepted: accepted, Overridden: true}, {Ancestor: "ListenerSet shop/ext", Accepted: accepted}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := samples(t)
			var objs []*unstructured.Unstructured
			for _, d := range append(append([]string(nil), topo...), tc.docs...) {
				objs = append(objs, object(t, d))
			}
			got, err := Profile{}.Ancestors(offlineOf(base.Settings, objs), kindOf(t, tc.kind), policy.Ref{Namespace: "shop", Name: tc.policy})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ancestors (-want +got):\n%s", d)
			}
		})
	}
}
