package gen

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The access profile's default Backend kind, as profiles/access/engine spells it.
const (
	BackendGroup = "agentic.prototype.x-k8s.io"
	BackendKind  = "XBackend"
)

// Access makes w a world of the access profile: each HTTPRoute route-i sends its first rule to a
// Backend be-i of its namespace (w's routes are changed in place), and each policy of w becomes an
// AccessPolicy of the same name: a Gateway policy one on its Gateway granting the agent of its
// routes' namespace the tools read and write, a route policy one on its route's Backend granting
// the agent of its namespace read. It returns the Backends
// and the AccessPolicies, in w's order.
func Access(w World) (backends, policies []*unstructured.Unstructured) {
	group, kind := gwv1.Group(BackendGroup), gwv1.Kind(BackendKind)
	for i := range w.Input.HTTPRoutes {
		r := &w.Input.HTTPRoutes[i]
		name := fmt.Sprintf("be-%d", i)
		r.Spec.Rules[0].BackendRefs = []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
			Group: &group, Kind: &kind, Name: gwv1.ObjectName(name), Namespace: ptr.To(gwv1.Namespace(r.Namespace))}}}}
		backends = append(backends, &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": BackendGroup + "/v1alpha1", "kind": BackendKind,
			"metadata": map[string]interface{}{"namespace": r.Namespace, "name": name}}})
	}
	g, r := 0, 0 // Generate's Gateway policy n is on Gateway n, its route policy n on route n
	for _, p := range w.Policies {
		if t := p.Targets[0]; t.Kind == "Gateway" {
			u := AccessPolicy(p.Ref.Namespace, p.Ref.Name, t.Group, t.Kind, t.Name, "read", "write")
			// The agent of the namespace of the Gateway's routes (route i is on Gateway i mod
			// Gateways, in the namespace of i mod 50: one namespace per Gateway when the Gateways
			// are a multiple of 50).
			rule := u.Object["spec"].(map[string]interface{})["rules"].([]interface{})[0].(map[string]interface{})
			rule["source"].(map[string]interface{})["serviceAccount"].(map[string]interface{})["namespace"] = RouteNamespace(g)
			policies = append(policies, u)
			g++
			continue
		}
		policies = append(policies, AccessPolicy(p.Ref.Namespace, p.Ref.Name, BackendGroup, BackendKind, fmt.Sprintf("be-%d", r), "read"))
		r++
	}
	return backends, policies
}

// AccessPolicy is Precedent's AccessPolicy ns/name on one target, granting the ServiceAccount agent
// (of ns) the tools.
func AccessPolicy(ns, name, targetGroup, targetKind, target string, tools ...interface{}) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "policy.precedent.dev/v1alpha1", "kind": "AccessPolicy",
		"metadata": map[string]interface{}{"name": name, "namespace": ns, "creationTimestamp": "2025-01-01T00:00:00Z"},
		"spec": map[string]interface{}{
			"targetRefs": []interface{}{map[string]interface{}{"group": targetGroup, "kind": targetKind, "name": target}},
			"rules": []interface{}{map[string]interface{}{"name": "agent",
				"source":        map[string]interface{}{"type": "ServiceAccount", "serviceAccount": map[string]interface{}{"name": "agent"}},
				"authorization": map[string]interface{}{"type": "InlineTools", "tools": tools}}},
		},
	}}
}
