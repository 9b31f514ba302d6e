package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// listenerWorld is Gateway envoy-gateway-system/eg with plain-HTTP listeners (http on 80; named
// with a hostname, wild, one and two without, on ports of their own), an HTTPS listener, and the
// ListenerSets a and b with a listener each on port 80 and c with two listeners on port 9090.
// HTTPRoute r1 (route.example.com) is on one and two, r2 (route2.example.com) on two.
func listenerWorld() *topology.Graph {
	same := gwv1.NamespacesFromSame
	ar := &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &same}}
	http := func(name string, port gwv1.PortNumber, host string) gwv1.Listener {
		l := gwv1.Listener{Name: gwv1.SectionName(name), Port: port, Protocol: gwv1.HTTPProtocolType, AllowedRoutes: ar}
		if host != "" {
			l.Hostname = ptr.To(gwv1.Hostname(host))
		}
		return l
	}
	gw := gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: "eg"}, Spec: gwv1.GatewaySpec{GatewayClassName: "eg",
		AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: &same}},
		Listeners: []gwv1.Listener{http("http", 80, ""), http("named", 8080, "www.example.com"), http("wild", 8081, ""),
			http("one", 8082, ""), http("two", 8083, ""), {Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, AllowedRoutes: ar}}}}
	ls := func(name string, ls ...gwv1.Listener) gwv1.ListenerSet {
		out := gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: name}, Spec: gwv1.ListenerSetSpec{ParentRef: gwv1.ParentGatewayReference{Name: "eg"}}}
		for _, l := range ls {
			out.Spec.Listeners = append(out.Spec.Listeners, gwv1.ListenerEntry{Name: l.Name, Port: l.Port, Protocol: l.Protocol, Hostname: l.Hostname, AllowedRoutes: l.AllowedRoutes})
		}
		return out
	}
	route := func(name, host string, sections ...string) gwv1.HTTPRoute {
		r := gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: name}, Spec: gwv1.HTTPRouteSpec{Hostnames: []gwv1.Hostname{gwv1.Hostname(host)}, Rules: []gwv1.HTTPRouteRule{{}}}}
		for _, s := range sections {
			r.Spec.ParentRefs = append(r.Spec.ParentRefs, gwv1.ParentReference{Name: "eg", SectionName: ptr.To(gwv1.SectionName(s))})
		}
		return r
	}
	return topology.Build(topology.Input{Gateways: []gwv1.Gateway{gw},
		ListenerSets: []gwv1.ListenerSet{ls("a", http("a", 80, "a.example.com")), ls("b", http("b", 80, "b.example.com")),
			ls("c", http("c1", 9090, "c1.example.com"), http("c2", 9090, "c2.example.com"))},
		HTTPRoutes: []gwv1.HTTPRoute{route("r1", "route.example.com", "one", "two"), route("r2", "route2.example.com", "two")}})
}

// TestListenerChecks: the checks of a ClientTrafficPolicy against the listeners it reaches, as
// Envoy Gateway's translator makes them (PortOverlap, Ciphers, HTTP10).
func TestListenerChecks(t *testing.T) {
	g := listenerWorld()
	h10 := obj{"http10": obj{"useDefaultHost": true}}
	for _, c := range []struct {
		name string
		spec obj
		want []string
	}{
		{"a whole ListenerSet whose listener shares its port with the Gateway's and another ListenerSet's",
			obj{"targetRefs": refs(ref("ListenerSet", "a"))},
			[]string{`spec.targetRefs[0].name: Invalid value: "a": listener envoy-gateway-system/eg/envoy-gateway-system/a/a shares port 80 with the plain-HTTP listeners envoy-gateway-system/eg/envoy-gateway-system/b/b, envoy-gateway-system/eg/http: Envoy Gateway marks the policy Invalid; give the ListenerSet's listeners ports of their own`}},
		{"a whole ListenerSet whose listeners share a port only with each other",
			obj{"targetRefs": refs(ref("ListenerSet", "c"))}, nil},
		{"one listener of a ListenerSet sharing its port with a sibling",
			obj{"targetRefs": refs(sref("ListenerSet", "c", "c1"))},
			[]string{`spec.targetRefs[0].sectionName: Invalid value: "c1": listener envoy-gateway-system/eg/envoy-gateway-system/c/c1 shares port 9090 with the plain-HTTP listeners envoy-gateway-system/eg/envoy-gateway-system/c/c2: Envoy Gateway marks the policy Invalid; target the Gateway or give the listener its own port`}},
		{"an unsupported cipher on a Gateway with an HTTPS listener",
			obj{"targetRefs": refs(ref("Gateway", "eg")), "tls": obj{"ciphers": list{"ECDHE-RSA-AES128-GCM-SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA", "INVALID-CIPHER"}}},
			[]string{`spec.tls.ciphers[2]: Invalid value: "INVALID-CIPHER": Envoy Gateway does not support this cipher suite and marks the policy Invalid; use one of its 14 supported suites (OpenSSL or IANA names, e.g. ECDHE-RSA-AES128-GCM-SHA256)`}},
		{"an unsupported cipher on a plain-HTTP listener is not read",
			obj{"targetRefs": refs(sref("Gateway", "eg", "wild")), "tls": obj{"ciphers": list{"INVALID-CIPHER"}}}, nil},
		{"http10 default host on a listener with a hostname",
			obj{"targetRefs": refs(sref("Gateway", "eg", "named")), "http1": h10}, nil},
		{"http10 default host on a wildcard listener without routes",
			obj{"targetRefs": refs(sref("Gateway", "eg", "wild")), "http1": h10},
			[]string{`spec.http1.http10.useDefaultHost: Invalid value: true: listener envoy-gateway-system/eg/wild has only wildcard hostnames and no route with a hostname of its own: Envoy Gateway cannot choose the HTTP/1.0 default host and marks the policy Invalid (targetRefs[0]); give the listener a hostname`}},
		{"http10 default host on a wildcard listener with one route with a hostname",
			obj{"targetRefs": refs(sref("Gateway", "eg", "one")), "http1": h10}, nil},
		{"http10 default host on a wildcard listener with two routes with a hostname",
			obj{"targetRefs": refs(sref("Gateway", "eg", "two")), "http1": h10},
			[]string{`spec.http1.http10.useDefaultHost: Invalid value: true: listener envoy-gateway-system/eg/two has only wildcard hostnames and 2 routes with a hostname of their own, so no one default: Envoy Gateway cannot choose the HTTP/1.0 default host and marks the policy Invalid (targetRefs[0]); give the listener a hostname`}},
		{"http10 without useDefaultHost", obj{"targetRefs": refs(sref("Gateway", "eg", "wild")), "http1": obj{"http10": obj{}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pol(t, ClientTrafficPolicy, gwNS, "p", 0, c.spec)
			var got []string
			for _, e := range append(append(PortOverlap(p, g), Ciphers(p, g)...), HTTP10(p, g)...) {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// TestPortOverlap: a ClientTrafficPolicy on one of several plain-HTTP listeners sharing a port is
// Invalid in Envoy Gateway (clienttrafficpolicy.go validatePortOverlapForClientTrafficPolicy); on
// a listener alone on its port, on an HTTPS listener or on the whole Gateway it is not.
func TestPortOverlap(t *testing.T) {
	g := topology.Build(topology.Input{Gateways: []gwv1.Gateway{{ObjectMeta: metav1.ObjectMeta{Namespace: gwNS, Name: "eg"},
		Spec: gwv1.GatewaySpec{GatewayClassName: "eg", Listeners: []gwv1.Listener{
			{Name: "a", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname("a.example.com"))},
			{Name: "b", Port: 80, Protocol: gwv1.HTTPProtocolType, Hostname: ptr.To(gwv1.Hostname("b.example.com"))},
			{Name: "c", Port: 8080, Protocol: gwv1.HTTPProtocolType},
			{Name: "s1", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To(gwv1.Hostname("a.example.com"))},
			{Name: "s2", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: ptr.To(gwv1.Hostname("b.example.com"))},
		}}}}})
	for _, c := range []struct {
		name string
		ref  obj
		want []string
	}{
		{"a listener sharing its port with another plain-HTTP listener", sref("Gateway", "eg", "a"),
			[]string{`spec.targetRefs[0].sectionName: Invalid value: "a": listener envoy-gateway-system/eg/a shares port 80 with the plain-HTTP listeners envoy-gateway-system/eg/b: Envoy Gateway marks the policy Invalid; target the Gateway or give the listener its own port`}},
		{"a listener alone on its port", sref("Gateway", "eg", "c"), nil},
		{"HTTPS listeners sharing a port", sref("Gateway", "eg", "s1"), nil},
		{"the whole Gateway", ref("Gateway", "eg"), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, e := range PortOverlap(pol(t, ClientTrafficPolicy, gwNS, "p", 0, obj{"targetRefs": refs(c.ref)}), g) {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}
