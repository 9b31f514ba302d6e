package gen

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/topology"
)

// KGatewayGroup is kgateway's API group, as profiles/kgateway/engine spells it.
const KGatewayGroup = "gateway.kgateway.dev"

// KGateway is w's policies as kgateway's: each one a TrafficPolicy of the same name on its target,
// created a second apart in w's order (Gateway policies first). (w's routes delegate nothing, so no
// inherited-policy-priority annotation is read: a route's values win over its Gateway's.)
func KGateway(w World) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(w.Policies))
	for i, p := range w.Policies {
		u := TrafficPolicy(p.Ref.Namespace, p.Ref.Name, p.Targets[0].Kind, p.Targets[0].Name)
		u.SetCreationTimestamp(metav1.NewTime(time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC)))
		out = append(out, u)
	}
	return out
}

// TrafficPolicy is kgateway's TrafficPolicy ns/name on target: on a Gateway a local rate limit and
// CORS, on a route a local rate limit (over the Gateway's) and a request timeout.
func TrafficPolicy(ns, name, targetKind, target string) *unstructured.Unstructured {
	limit := func(tokens int64) map[string]interface{} {
		return map[string]interface{}{"local": map[string]interface{}{"tokenBucket": map[string]interface{}{"maxTokens": tokens, "fillInterval": "1s"}}}
	}
	spec := map[string]interface{}{"targetRefs": []interface{}{map[string]interface{}{"group": topology.Group, "kind": targetKind, "name": target}}}
	if targetKind == "Gateway" {
		spec["rateLimit"] = limit(100)
		spec["cors"] = map[string]interface{}{"allowOrigins": []interface{}{"https://shop.example.com"}}
	} else {
		spec["rateLimit"] = limit(5)
		spec["timeouts"] = map[string]interface{}{"request": "5s"}
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": KGatewayGroup + "/v1alpha1", "kind": "TrafficPolicy",
		"metadata": map[string]interface{}{"namespace": ns, "name": name}, "spec": spec}}
}

// KGatewayUndatedPairs is w's policies as pairs of kgateway's TrafficPolicies without
// creationTimestamp on the policy's target (the policy's name and that name with -b): the order of
// each pair is unknown, so validate -f checks whether it changes the answer (PRC-W100).
func KGatewayUndatedPairs(w World) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, 2*len(w.Policies))
	for _, p := range w.Policies {
		for _, name := range []string{p.Ref.Name, p.Ref.Name + "-b"} {
			out = append(out, TrafficPolicy(p.Ref.Namespace, name, p.Targets[0].Kind, p.Targets[0].Name))
		}
	}
	return out
}
