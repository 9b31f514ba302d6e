package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/webhook"
)

// benchValidator is a Validator over a State filled by hand (state.Apply), as synced.
func benchValidator(s *state.State) *webhook.Validator {
	return &webhook.Validator{Settings: liveconfig.NewLive(settings.Defaults(), logr.Discard()), State: s, Log: logr.Discard()}
}

func createRequest(gvk schema.GroupVersionKind, obj map[string]interface{}) admission.Request {
	raw, _ := json.Marshal(obj)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Object:    runtime.RawExtension{Raw: raw},
	}}
}

func accessObject(name, targetKind, targetGroup, target string, tools ...interface{}) map[string]interface{} {
	return gen.AccessPolicy("shop", name, targetGroup, targetKind, target, tools...).Object
}

// BenchmarkAccessGatewayWrite: the webhook's review of a Gateway-level AccessPolicy write with 1,000
// Backends behind the Gateway (one HTTPRoute each), each with a Backend-level policy granting two
// tools, one of which the write denies: 1,000 unreachable grants, capped to the warning limit.
func BenchmarkAccessGatewayWrite(b *testing.B) {
	const backends = 1000
	s := state.New(logr.Discard())
	s.Apply(&gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gw"},
		Spec:       gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
	})
	group, kind := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind)
	for i := 0; i < backends; i++ {
		name := fmt.Sprintf("b%d", i)
		r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
		r.Spec.ParentRefs = []gwv1.ParentReference{{Name: "gw"}}
		r.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Group: &group, Kind: &kind, Name: gwv1.ObjectName(name)}}}}}}
		u := &unstructured.Unstructured{Object: accessObject("pol-"+name, access.DefaultBackendKind, access.DefaultBackendGroup, name, "x", fmt.Sprintf("t%d", i))}
		s.Apply(r, u)
	}
	v := benchValidator(s)
	req := createRequest(access.AccessPolicyKind.WithVersion("v1alpha1"), accessObject("gw-pol", "Gateway", access.GatewayGroup, "gw", "x"))
	if resp := v.Handle(context.Background(), req); !resp.Allowed || len(resp.Warnings) != settings.Defaults().WarningLimit {
		b.Fatalf("allowed %t, %d warnings: %v", resp.Allowed, len(resp.Warnings), resp.Result)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Handle(context.Background(), req)
	}
}

// BenchmarkMeshWrite: the webhook's review of a MeshTimeout write in a mesh of 200 MeshTimeouts
// (Service-level, one per service) and 50 Dataplanes with 20 outbounds each.
func BenchmarkMeshWrite(b *testing.B) {
	const policies, proxies, outbounds = 200, 50, 20
	s := state.New(logr.Discard())
	timeout := func(name, top string, to []interface{}) map[string]interface{} {
		return map[string]interface{}{
			"apiVersion": "policy.precedent.dev/v1alpha1", "kind": "MeshTimeout",
			"metadata": map[string]interface{}{"name": name, "namespace": "kuma-system"},
			"spec":     map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Service", "name": top}, "to": to},
		}
	}
	for i := 0; i < policies; i++ {
		to := []interface{}{
			map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Service", "name": fmt.Sprintf("svc-%d", (i+1)%outbounds)}, "connectTimeout": "1s"},
			map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Mesh"}, "http": map[string]interface{}{"requestTimeout": "5s"}},
		}
		s.Apply(&unstructured.Unstructured{Object: timeout(fmt.Sprintf("p-%03d", i), fmt.Sprintf("svc-%d", i%proxies), to)})
	}
	for i := 0; i < proxies; i++ {
		var outbound []interface{}
		for o := 0; o < outbounds; o++ {
			outbound = append(outbound, map[string]interface{}{"tags": map[string]interface{}{mesh.ServiceTag: fmt.Sprintf("svc-%d", o)}})
		}
		s.Apply(&unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "kuma.io/v1alpha1", "kind": mesh.KindDataplane,
			"metadata": map[string]interface{}{"name": fmt.Sprintf("dp-%d", i), "namespace": "kuma-demo"},
			"spec": map[string]interface{}{"networking": map[string]interface{}{
				"inbound":  []interface{}{map[string]interface{}{"tags": map[string]interface{}{mesh.ServiceTag: fmt.Sprintf("svc-%d", i)}}},
				"outbound": outbound,
			}},
		}})
	}
	v := benchValidator(s)
	req := createRequest(meshprofile.MeshTimeoutKind.WithVersion("v1alpha1"), timeout("written", "svc-1", []interface{}{
		map[string]interface{}{"targetRef": map[string]interface{}{"kind": "Mesh"}, "connectTimeout": "2s"},
	}))
	if resp := v.Handle(context.Background(), req); !resp.Allowed {
		b.Fatalf("rejected: %v", resp.Result)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Handle(context.Background(), req)
	}
}

// BenchmarkAccessTopologyRebuild: rebuilding the access topology (and the grants of no policies over
// it) after a topology change, with 1,000
// Gateways and 10,000 HTTPRoutes in the cache, each route sending its first rule to one of 2,000
// Backends (what the first AccessPolicy write after any Gateway or route change pays).
func BenchmarkAccessTopologyRebuild(b *testing.B) {
	w := gen.Generate(gen.Size{Gateways: 1000, Routes: 10000})
	s := state.New(logr.Discard())
	for i := range w.Input.Gateways {
		s.Apply(&w.Input.Gateways[i])
	}
	group, kind := gwv1.Group(access.DefaultBackendGroup), gwv1.Kind(access.DefaultBackendKind)
	for i := range w.Input.HTTPRoutes {
		r := &w.Input.HTTPRoutes[i]
		r.Spec.Rules[0].BackendRefs = []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
			Group: &group, Kind: &kind, Name: gwv1.ObjectName(fmt.Sprintf("backend-%d", i%2000))}}}}
		s.Apply(r)
	}
	if topo := accessprofile.Topology(s, access.DefaultSettings()); len(topo.BackendsBehind("infra/gw-0")) == 0 {
		b.Fatal("no Backend behind infra/gw-0")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Apply(&w.Input.HTTPRoutes[i%len(w.Input.HTTPRoutes)]) // a route change: the topology is stale
		accessprofile.Topology(s, access.DefaultSettings())
	}
}
