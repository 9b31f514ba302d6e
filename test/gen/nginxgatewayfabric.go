package gen

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// NGINX Gateway Fabric's names, as profiles/nginxgatewayfabric spells them.
const (
	NGINXGroup           = "gateway.nginx.org"
	NGINXController      = "gateway.nginx.org/nginx-gateway-controller"
	ClientSettingsPolicy = "ClientSettingsPolicy"
)

// NGINXGatewayFabric makes w a world of the nginx-gateway-fabric profile: each HTTPRoute route-i
// serves route-i.example.com (no two routes share a hostname:port/path, which would deny a
// route-targeted policy) and sends its first rule to Service route-i of its namespace (w's routes
// are changed in place). Each Gateway policy of w becomes a ClientSettingsPolicy of the same name
// on its Gateway; the route policies become, in turn, a ClientSettingsPolicy or an
// ObservabilityPolicy on their route, or an UpstreamSettingsPolicy on its Service; created a second
// apart in w's order. It returns the Services and the policies.
func NGINXGatewayFabric(w World) (services, policies []*unstructured.Unstructured) {
	for i := range w.Input.HTTPRoutes {
		r := &w.Input.HTTPRoutes[i]
		r.Spec.Hostnames = []gwv1.Hostname{gwv1.Hostname(r.Name + ".example.com")}
		r.Spec.Rules[0].BackendRefs = []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
			Name: gwv1.ObjectName(r.Name), Port: ptr.To(gwv1.PortNumber(80))}}}}
		services = append(services, &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]interface{}{"namespace": r.Namespace, "name": r.Name},
			"spec":     map[string]interface{}{"ports": []interface{}{map[string]interface{}{"port": int64(80)}}}}})
	}
	r := 0 // Generate's route policy n is on route n
	for i, p := range w.Policies {
		t := p.Targets[0]
		k, kind, name := ClientSettingsPolicy, t.Kind, t.Name
		if t.Kind != "Gateway" {
			switch r % 3 {
			case 1:
				k = "ObservabilityPolicy"
			case 2:
				k, kind, name = "UpstreamSettingsPolicy", "Service", fmt.Sprintf("route-%d", r)
			}
			r++
		}
		u := NGINXPolicy(k, p.Ref.Namespace, p.Ref.Name, kind, name)
		u.SetCreationTimestamp(metav1.NewTime(time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC)))
		policies = append(policies, u)
	}
	return services, policies
}

// NGINXPolicy is NGINX Gateway Fabric's policy of kind k ns/name on target: a ClientSettingsPolicy
// sets the body's size and timeout and the keep-alive requests on a Gateway, the body's size on a
// route; an ObservabilityPolicy traces one request in ten; an UpstreamSettingsPolicy sets the
// Service's zone size and keep-alive connections.
func NGINXPolicy(k, ns, name, targetKind, target string) *unstructured.Unstructured {
	ref := map[string]interface{}{"group": topology.Group, "kind": targetKind, "name": target}
	spec := map[string]interface{}{"targetRefs": []interface{}{ref}}
	version := "v1alpha1"
	switch {
	case k == ClientSettingsPolicy && targetKind == "Gateway":
		spec = map[string]interface{}{"targetRef": ref, "body": map[string]interface{}{"maxSize": "10m", "timeout": "30s"},
			"keepAlive": map[string]interface{}{"requests": int64(100)}}
	case k == ClientSettingsPolicy:
		spec = map[string]interface{}{"targetRef": ref, "body": map[string]interface{}{"maxSize": "1m"}}
	case k == "ObservabilityPolicy":
		version = "v1alpha2"
		spec["tracing"] = map[string]interface{}{"strategy": "ratio", "ratio": int64(10)}
	default:
		ref["group"] = "core"
		spec["zoneSize"] = "1m"
		spec["keepAlive"] = map[string]interface{}{"connections": int64(32)}
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": NGINXGroup + "/" + version, "kind": k,
		"metadata": map[string]interface{}{"namespace": ns, "name": name}, "spec": spec}}
}

// NGINXUndatedPairs is policies (NGINXGatewayFabric's) in undated pairs: each one without
// creationTimestamp, and beside it a copy named with -b on the same target: the order of each pair
// is unknown, so validate -f checks whether it changes the answer (PRC-W100).
func NGINXUndatedPairs(policies []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, 2*len(policies))
	for _, p := range policies {
		a := p.DeepCopy()
		a.SetCreationTimestamp(metav1.Time{})
		b := a.DeepCopy()
		b.SetName(a.GetName() + "-b")
		out = append(out, a, b)
	}
	return out
}
