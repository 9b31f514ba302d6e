package gen

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// meshWide is how many Mesh-level MeshTimeouts Mesh generates, whatever the size: a mesh has a
// handful of mesh-wide defaults, not a number that grows with its services.
const meshWide = 10

// Mesh is a Kuma mesh ("default") of dataplanes Dataplanes in kuma-demo, ten per service (at least
// one service), each with 10 outbounds to the next services; a MeshService per service, and
// Precedent's MeshTimeouts in kuma-system: one per service (its Dataplanes to the next service, and
// every outbound's HTTP request timeout), then meshWide on the whole mesh. In that order: the
// Dataplanes and MeshServices, then the policies.
func Mesh(dataplanes int) []*unstructured.Unstructured {
	services := max(dataplanes/10, 1)
	out := make([]*unstructured.Unstructured, 0, dataplanes+2*services+meshWide)
	for i := 0; i < dataplanes; i++ {
		out = append(out, Dataplane(i, services, (i%services)+1))
	}
	for i := 0; i < services; i++ {
		out = append(out, MeshService(i, 0))
	}
	for i := 0; i < services; i++ {
		out = append(out, MeshTimeout(fmt.Sprintf("svc-%d-timeouts", i), fmt.Sprintf("svc-%d", i), fmt.Sprintf("svc-%d", (i+1)%services), 1+i%3))
	}
	for i := 0; i < meshWide; i++ {
		out = append(out, MeshTimeout(fmt.Sprintf("mesh-%d-timeouts", i), "", "", 5+i))
	}
	return out
}

// MeshTimeout is Precedent's MeshTimeout name in kuma-system on the Dataplanes of service from
// (the whole mesh when ""), with a connect timeout of seconds towards service to (every outbound
// when "") and a 5 s HTTP request timeout on every outbound.
func MeshTimeout(name, from, to string, seconds int) *unstructured.Unstructured {
	ref := func(svc string) map[string]interface{} {
		if svc == "" {
			return map[string]interface{}{"kind": "Mesh"}
		}
		return map[string]interface{}{"kind": "Service", "name": svc}
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "policy.precedent.dev/v1alpha1", "kind": "MeshTimeout",
		"metadata": map[string]interface{}{"name": name, "namespace": "kuma-system"},
		"spec": map[string]interface{}{"targetRef": ref(from), "to": []interface{}{
			map[string]interface{}{"targetRef": ref(to), "connectTimeout": fmt.Sprintf("%ds", seconds)},
			map[string]interface{}{"targetRef": ref(""), "http": map[string]interface{}{"requestTimeout": "5s"}},
		}},
	}}
}

// Dataplane is Kuma's Dataplane dp-i in kuma-demo, of service svc-(i%services), with 10 outbounds
// from svc-shift on.
func Dataplane(i, services, shift int) *unstructured.Unstructured {
	var outbound []interface{}
	for o := 0; o < 10; o++ {
		outbound = append(outbound, map[string]interface{}{"tags": map[string]interface{}{"kuma.io/service": fmt.Sprintf("svc-%d", (o+shift)%services)}})
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "kuma.io/v1alpha1", "kind": "Dataplane",
		"metadata": map[string]interface{}{"name": fmt.Sprintf("dp-%d", i), "namespace": "kuma-demo"},
		"spec": map[string]interface{}{"networking": map[string]interface{}{
			"inbound":  []interface{}{map[string]interface{}{"tags": map[string]interface{}{"kuma.io/service": fmt.Sprintf("svc-%d", i%services)}}},
			"outbound": outbound,
		}},
	}}
}

// MeshService is Kuma's MeshService svc-i in kuma-demo, labelled team-(i+shift)%10.
func MeshService(i, shift int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshService",
		"metadata": map[string]interface{}{"name": fmt.Sprintf("svc-%d", i), "namespace": "kuma-demo",
			"labels": map[string]interface{}{"team": fmt.Sprintf("team-%d", (i+shift)%10)}},
		"spec": map[string]interface{}{"ports": []interface{}{map[string]interface{}{"port": int64(80)}}},
	}}
}
