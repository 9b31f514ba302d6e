package gen

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Envoy Gateway's names, as profiles/envoygateway/engine spells them (which this package does not
// import: the engine's own tests use it).
const (
	EnvoyGatewayGroup      = "gateway.envoyproxy.io"
	EnvoyGatewayController = "gateway.envoyproxy.io/gatewayclass-controller"
	SecurityPolicy         = "SecurityPolicy"
	BackendTrafficPolicy   = "BackendTrafficPolicy"
)

// EnvoyGateway is w's policies as Envoy Gateway's: each one a SecurityPolicy and a
// BackendTrafficPolicy on its target, created a second apart in w's order (Gateway policies first).
func EnvoyGateway(w World) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for i, p := range w.Policies {
		for _, k := range []string{SecurityPolicy, BackendTrafficPolicy} {
			u := EnvoyGatewayPolicy(k, p.Ref.Namespace, p.Ref.Name, p.Targets[0].Kind, p.Targets[0].Name, 0)
			u.SetCreationTimestamp(metav1.NewTime(time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC)))
			out = append(out, u)
		}
	}
	return out
}

// EnvoyGatewayPolicy is a policy of kind k on target, version v of it: on a Gateway, CORS, JWT and
// authorization (SecurityPolicy) or timeouts and retries (BackendTrafficPolicy); on a route, the
// same merged strategically into the Gateway's.
func EnvoyGatewayPolicy(k, ns, name, targetKind, target string, v int) *unstructured.Unstructured {
	spec := map[string]interface{}{"targetRefs": []interface{}{map[string]interface{}{"group": topology.Group, "kind": targetKind, "name": target}}}
	switch {
	case k == SecurityPolicy && targetKind == "Gateway":
		spec["jwt"] = map[string]interface{}{"providers": []interface{}{map[string]interface{}{"name": "corp", "remoteJWKS": map[string]interface{}{"uri": "https://login.example.com/jwks"}}}}
		spec["cors"] = map[string]interface{}{"allowOrigins": []interface{}{fmt.Sprintf("https://v%d.example.com", v)}}
		spec["authorization"] = map[string]interface{}{"defaultAction": "Deny", "rules": []interface{}{map[string]interface{}{"action": "Allow", "principal": map[string]interface{}{"clientCIDRs": []interface{}{"10.0.0.0/8"}}}}}
	case k == SecurityPolicy:
		spec["mergeType"] = "StrategicMerge"
		spec["extAuth"] = map[string]interface{}{"http": map[string]interface{}{"backendRefs": []interface{}{map[string]interface{}{"name": "authz", "port": int64(9000 + v)}}}}
	case targetKind == "Gateway":
		spec["timeout"] = map[string]interface{}{"http": map[string]interface{}{"requestTimeout": fmt.Sprintf("%ds", 10+v)}}
		spec["retry"] = map[string]interface{}{"numRetries": int64(2)}
	default:
		spec["mergeType"] = "StrategicMerge"
		spec["timeout"] = map[string]interface{}{"tcp": map[string]interface{}{"connectTimeout": fmt.Sprintf("%ds", 1+v)}}
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": EnvoyGatewayGroup + "/v1alpha1", "kind": k,
		"metadata": map[string]interface{}{"namespace": ns, "name": name}, "spec": spec}}
}
