package engine

import (
	"fmt"
	"math/rand"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Random Gateways, HTTPRoutes and namespace labels for the property test, over few names so that
// events meet: listeners whose allowedRoutes change (Same, All, Selector, kinds), routes whose
// parentRefs (section, port, namespace, kind) and backendRefs (kind, namespace) change.

func randomLabels(r *rand.Rand) map[string]string {
	switch r.Intn(5) {
	case 0:
		return nil
	case 1:
		return map[string]string{"env": "prod"}
	case 2:
		return map[string]string{"env": "dev", "team": "a"}
	case 3:
		return map[string]string{"team": "a", "env": "prod"}
	}
	return map[string]string{"team": "b"}
}

func randomGateway(r *rand.Rand, name string) *gatewayv1.Gateway {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	for i, n := 0, 1+r.Intn(3); i < n; i++ {
		l := gatewayv1.Listener{Name: gatewayv1.SectionName(fmt.Sprintf("l-%d", i)), Port: []gatewayv1.PortNumber{80, 443, 9000}[r.Intn(3)],
			Protocol: []gatewayv1.ProtocolType{gatewayv1.HTTPProtocolType, gatewayv1.HTTPSProtocolType, gatewayv1.TCPProtocolType}[r.Intn(3)]}
		switch r.Intn(7) {
		case 0: // Same by default
		case 1:
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromSame)}}
		case 2:
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromAll)}}
		case 3:
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}
		case 4:
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"a"}}}}}}
		case 5:
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromAll)},
				Kinds: []gatewayv1.RouteGroupKind{{Kind: "GRPCRoute"}}}
		case 6:
			l.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromSelector),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}, Kinds: []gatewayv1.RouteGroupKind{{Kind: "HTTPRoute"}}}
		}
		gw.Spec.Listeners = append(gw.Spec.Listeners, l)
	}
	return gw
}

func randomRoute(r *rand.Rand, ns, name string) *gatewayv1.HTTPRoute {
	rt := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for i, n := 0, r.Intn(4); i < n; i++ {
		pr := gatewayv1.ParentReference{Name: gatewayv1.ObjectName(worldGateways[r.Intn(len(worldGateways))])}
		if ns != "ns" || r.Intn(2) == 0 {
			pr.Namespace = ptr.To(gatewayv1.Namespace([]string{"ns", "ns", "ns", "ns-x"}[r.Intn(4)]))
		}
		if r.Intn(3) == 0 {
			pr.SectionName = ptr.To(gatewayv1.SectionName(fmt.Sprintf("l-%d", r.Intn(3))))
		}
		if r.Intn(4) == 0 {
			pr.Port = ptr.To([]gatewayv1.PortNumber{80, 443}[r.Intn(2)])
		}
		if r.Intn(8) == 0 {
			pr.Group, pr.Kind = ptr.To(gatewayv1.Group("")), ptr.To(gatewayv1.Kind("Service"))
		}
		rt.Spec.ParentRefs = append(rt.Spec.ParentRefs, pr)
	}
	for i, n := 0, r.Intn(3); i < n; i++ {
		var rule gatewayv1.HTTPRouteRule
		for j, m := 0, r.Intn(4); j < m; j++ {
			ref := gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(fmt.Sprintf("be-%d", r.Intn(6)))}
			if r.Intn(6) != 0 {
				ref.Group, ref.Kind = ptr.To(gatewayv1.Group(DefaultBackendGroup)), ptr.To(gatewayv1.Kind(DefaultBackendKind))
			}
			if ns != "ns" || r.Intn(2) == 0 {
				ref.Namespace = ptr.To(gatewayv1.Namespace("ns"))
			}
			rule.BackendRefs = append(rule.BackendRefs, gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{BackendObjectReference: ref}})
		}
		rt.Spec.Rules = append(rt.Spec.Rules, rule)
	}
	return rt
}
