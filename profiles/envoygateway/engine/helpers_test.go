package engine

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

type obj = map[string]interface{}
type list = []interface{}

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// pol reads a policy written as YAML would be, created `age` minutes after t0.
func pol(t testing.TB, kind, ns, name string, age int, spec obj) *Policy {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj{"apiVersion": Group + "/" + Version, "kind": kind,
		"metadata": obj{"namespace": ns, "name": name}, "spec": spec}}
	u.SetCreationTimestamp(metav1.NewTime(t0.Add(time.Duration(age) * time.Minute)))
	p, errs := Read(u)
	if len(errs) > 0 {
		t.Fatalf("reading %s/%s: %v", ns, name, errs)
	}
	return p
}

func ref(kind, name string) obj { return obj{"group": topology.Group, "kind": kind, "name": name} }
func sref(kind, name, section string) obj {
	r := ref(kind, name)
	r["sectionName"] = section
	return r
}
func refs(rs ...obj) list {
	out := list{}
	for _, r := range rs {
		out = append(out, r)
	}
	return out
}

// shop is the world of the examples: Gateway envoy-gateway-system/eg with listeners http and
// https; HTTPRoute shop/cart (rules main, admin) on http; HTTPRoute shop/shelf on https; a
// ListenerSet shop/team on eg with listener team-http, HTTPRoute shop/team-route on it.
func shop() Input {
	from := gwv1.NamespacesFromAll
	ar := &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &from}}
	gw := gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "envoy-gateway-system", Name: "eg"},
		Spec: gwv1.GatewaySpec{GatewayClassName: "eg", Listeners: []gwv1.Listener{
			{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType, AllowedRoutes: ar},
			{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, AllowedRoutes: ar},
			{Name: "tcp", Port: 9000, Protocol: gwv1.TCPProtocolType, AllowedRoutes: ar},
		}}}
	parent := func(section string) []gwv1.ParentReference {
		return []gwv1.ParentReference{{Name: "eg", Namespace: ptr.To(gwv1.Namespace("envoy-gateway-system")), SectionName: ptr.To(gwv1.SectionName(section))}}
	}
	route := func(name, section string, rules ...string) gwv1.HTTPRoute {
		r := gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
		r.Spec.ParentRefs = parent(section)
		for _, n := range rules {
			r.Spec.Rules = append(r.Spec.Rules, gwv1.HTTPRouteRule{Name: ptr.To(gwv1.SectionName(n))})
		}
		return r
	}
	teamRoute := route("team-route", "", "main")
	teamRoute.Spec.ParentRefs = []gwv1.ParentReference{{Kind: ptr.To(gwv1.Kind("ListenerSet")), Name: "team"}}
	g := topology.Build(topology.Input{
		Gateways:   []gwv1.Gateway{gw},
		HTTPRoutes: []gwv1.HTTPRoute{route("cart", "http", "main", "admin"), route("shelf", "https", "main"), teamRoute},
	})
	return Input{
		Graph:        g,
		ListenerSets: []ListenerSet{{Key: topology.Key{Namespace: "shop", Name: "team"}, Gateway: topology.Key{Namespace: "envoy-gateway-system", Name: "eg"}, Listeners: []string{"team-http"}}},
		L4Routes:     []L4Route{{Kind: "TCPRoute", Key: topology.Key{Namespace: "shop", Name: "db"}, Parents: parent("tcp"), Rules: []string{"rule-0"}}},
	}
}

func snapshot(in Input, ps ...*Policy) *Snapshot {
	in.Policies = ps
	return NewSnapshot(in)
}

// at computes the effective policy of kind on the first path matching route/rule/listener.
func at(t testing.TB, s *Snapshot, kind, route, rule, listener string) Result {
	t.Helper()
	for i := 0; i < s.PathCount(kind); i++ {
		p := s.pathOf(kind, i)
		if p.Route.String() == route && p.Rule == rule && (listener == "" || p.Listener == listener) {
			r, _ := s.Compute(kind, i)
			return r
		}
	}
	t.Fatalf("no path %s#%s on %s", route, rule, listener)
	return Result{}
}

const gwNS = "envoy-gateway-system"
