package access_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
	"github.com/precedent-dev/precedent/test/gen"
)

// BenchmarkAccessPolicyEvent: applying one AccessPolicy update (a Backend-level policy whose tools
// change) through the State's informer handler, grants built, with 1,000 and 10,000 Backends spread
// over 10 Gateways, each Backend with a policy of its own; then reading the grants, which the event
// has published. The cost should not grow with the Backends.
func BenchmarkAccessPolicyEvent(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("backends=%d", n), func(b *testing.B) {
			st, inf := watchedState(b)
			group, kind := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind)
			for g := 0; g < 10; g++ {
				inf.Add(b, &gwv1.Gateway{
					ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("gw-%d", g)},
					Spec:       gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
				})
			}
			for i := 0; i < n; i++ {
				rt := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("be-%d", i)}}
				rt.Spec.ParentRefs = []gwv1.ParentReference{{Name: gwv1.ObjectName(fmt.Sprintf("gw-%d", i%10))}}
				rt.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Group: &group, Kind: &kind, Name: gwv1.ObjectName(rt.Name)}}}}}}
				inf.Add(b, rt)
				inf.Add(b, backendPolicy(i, "read", "write"))
			}
			as := access.DefaultSettings()
			if g := accessprofile.Grants(st, access.AccessPolicyKind, as); g == nil {
				b.Fatal("no grants")
			}
			versions := [2]*unstructured.Unstructured{backendPolicy(7, "read", "write"), backendPolicy(7, "read", "admin")}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				inf.Update(b, versions[i%2], versions[(i+1)%2])
				accessprofile.Grants(st, access.AccessPolicyKind, as)
			}
		})
	}
}

// backendPolicy is the AccessPolicy of Backend be-i granting tools to shop/agent.
func backendPolicy(i int, tools ...interface{}) *unstructured.Unstructured {
	name := fmt.Sprintf("be-%d", i)
	return gen.AccessPolicy("shop", name, access.DefaultBackendGroup, access.DefaultBackendKind, name, tools...)
}
