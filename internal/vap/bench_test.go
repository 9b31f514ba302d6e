package vap_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/vap"
)

// BenchmarkExportedVAP evaluates the exported policy of RateLimitPolicy on a valid write, with the
// API server's compiler and validator: what the policy adds to a write, apart from the plugin's
// matching and the request's decoding.
func BenchmarkExportedVAP(b *testing.B) {
	k := policy.Builtin()[1]
	p, _ := vap.Policy(k, "ratelimitpolicies")
	t := &testing.T{}
	v := compile(t, p)
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": k.GVK.GroupVersion().String(), "kind": k.GVK.Kind,
		"metadata": map[string]interface{}{"name": "p", "namespace": "shop"},
		"spec": map[string]interface{}{
			"targetRef": map[string]interface{}{"group": policy.GatewayGroup, "kind": "HTTPRoute", "name": "cart"},
			"defaults":  map[string]interface{}{"strategy": "merge", "limits": map[string]interface{}{"a": map[string]interface{}{}, "b": map[string]interface{}{}}},
			"unset":     []interface{}{"c", "d"},
		},
	}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if d := denied(t, v, obj, nil); len(d) != 0 {
			b.Fatalf("denied: %v", d)
		}
	}
	b.ReportMetric(float64(len(p.Spec.Validations)), "validations")
}
