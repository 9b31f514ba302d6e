package topology_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Attachment scenarios after the Gateway API conformance suite (ListenerSet and L4 route tests),
// in our own words.

func meta(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

// gateway is infra/gw of class c with listeners, allowing ListenerSets from (nil: not at all).
func gateway(from *gwv1.FromNamespaces, ls ...gwv1.Listener) gwv1.Gateway {
	gw := gwv1.Gateway{ObjectMeta: meta("infra", "gw")}
	gw.Spec.GatewayClassName = "c"
	gw.Spec.Listeners = ls
	if from != nil {
		gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: from}}
		if *from == gwv1.NamespacesFromSelector {
			gw.Spec.AllowedListeners.Namespaces.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"listeners": "ok"}}
		}
	}
	return gw
}

func listener(name string, port int32, proto gwv1.ProtocolType) gwv1.Listener {
	return gwv1.Listener{Name: gwv1.SectionName(name), Port: gwv1.PortNumber(port), Protocol: proto,
		AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr.To(gwv1.NamespacesFromAll)}}}
}

// listenerSet is ns/name with parent infra/gw.
func listenerSet(ns, name string, ls ...gwv1.Listener) gwv1.ListenerSet {
	s := gwv1.ListenerSet{ObjectMeta: meta(ns, name)}
	s.Spec.ParentRef = gwv1.ParentGatewayReference{Name: "gw", Namespace: ptr.To(gwv1.Namespace("infra"))}
	for _, l := range ls {
		s.Spec.Listeners = append(s.Spec.Listeners, gwv1.ListenerEntry{Name: l.Name, Port: l.Port, Protocol: l.Protocol, AllowedRoutes: l.AllowedRoutes})
	}
	return s
}

// toLS and toGW are parentRefs to a ListenerSet of ns and to infra/gw, with a section or port.
func toLS(ns, name, section string, port int32) gwv1.ParentReference {
	p := gwv1.ParentReference{Kind: ptr.To(gwv1.Kind("ListenerSet")), Name: gwv1.ObjectName(name), Namespace: ptr.To(gwv1.Namespace(ns))}
	return withSection(p, section, port)
}

func toGW(section string, port int32) gwv1.ParentReference {
	return withSection(gwv1.ParentReference{Name: "gw", Namespace: ptr.To(gwv1.Namespace("infra"))}, section, port)
}

func withSection(p gwv1.ParentReference, section string, port int32) gwv1.ParentReference {
	if section != "" {
		p.SectionName = ptr.To(gwv1.SectionName(section))
	}
	if port != 0 {
		p.Port = ptr.To(gwv1.PortNumber(port))
	}
	return p
}

func httpRoute(ns, name string, parents ...gwv1.ParentReference) gwv1.HTTPRoute {
	r := gwv1.HTTPRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	return r
}

func tcpRoute(ns, name string, parents ...gwv1.ParentReference) gwv1.TCPRoute {
	r := gwv1.TCPRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	r.Spec.Rules = []gwv1.TCPRouteRule{{Name: ptr.To(gwv1.SectionName("db"))}}
	return r
}

func udpRoute(ns, name string, parents ...gwv1.ParentReference) gwv1.UDPRoute {
	r := gwv1.UDPRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	return r
}

func tlsRoute(ns, name string, parents ...gwv1.ParentReference) gwv1.TLSRoute {
	r := gwv1.TLSRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	return r
}

func withHost(l gwv1.Listener, h string) gwv1.Listener {
	l.Hostname = ptr.To(gwv1.Hostname(h))
	return l
}

func withHosts(r gwv1.HTTPRoute, hs ...string) gwv1.HTTPRoute {
	for _, h := range hs {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gwv1.Hostname(h))
	}
	return r
}

// pathString shows a path as "gateway [listenerset]#listener [kind route#rule]".
func pathString(p topology.Path) string {
	s := p.Gateway.String()
	if p.ListenerSet.Name != "" {
		s += " " + p.ListenerSet.String()
	}
	s += "#" + p.Listener
	if p.RouteKind != "" {
		s += " " + p.RouteKind + " " + p.Route.String() + "#" + p.Rule
	}
	return s
}

func TestAttachment(t *testing.T) {
	same, all, sel := ptr.To(gwv1.NamespacesFromSame), ptr.To(gwv1.NamespacesFromAll), ptr.To(gwv1.NamespacesFromSelector)
	none := ptr.To(gwv1.FromNamespaces("None"))
	web := listener("web", 80, gwv1.HTTPProtocolType)
	extra := listener("extra", 8080, gwv1.HTTPProtocolType)
	tests := []struct {
		name       string
		in         topology.Input
		want       []string
		unattached []string
	}{
		{
			name: "a ListenerSet of the Gateway's namespace is attached when allowedListeners says Same; a route attaches to its listener",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(same, web)}, ListenerSets: []gwv1.ListenerSet{listenerSet("infra", "ls", extra)},
				HTTPRoutes: []gwv1.HTTPRoute{httpRoute("shop", "r", toLS("infra", "ls", "", 0))}},
			want: []string{"infra/gw infra/ls#extra HTTPRoute shop/r#rule-0", "infra/gw#web"},
		},
		{
			name: "Same does not admit a ListenerSet of another namespace: its routes attach nowhere",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(same, web)}, ListenerSets: []gwv1.ListenerSet{listenerSet("shop", "ls", extra)},
				HTTPRoutes: []gwv1.HTTPRoute{httpRoute("shop", "r", toLS("shop", "ls", "", 0))}},
			want:       []string{"infra/gw#web"},
			unattached: []string{"HTTPRoute shop/r"},
		},
		{
			name: "without allowedListeners (None by default) no ListenerSet is attached",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(nil, web)}, ListenerSets: []gwv1.ListenerSet{listenerSet("infra", "ls", extra)},
				HTTPRoutes: []gwv1.HTTPRoute{httpRoute("infra", "r", toLS("infra", "ls", "", 0))}},
			want:       []string{"infra/gw#web"},
			unattached: []string{"HTTPRoute infra/r"},
		},
		{
			name: "allowedListeners None admits none",
			in:   topology.Input{Gateways: []gwv1.Gateway{gateway(none, web)}, ListenerSets: []gwv1.ListenerSet{listenerSet("infra", "ls", extra)}},
			want: []string{"infra/gw#web"},
		},
		{
			name: "All admits ListenerSets of any namespace, each listener with a path of its own",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(all, web)},
				ListenerSets: []gwv1.ListenerSet{listenerSet("shop", "ls", extra, listener("other", 8081, gwv1.HTTPProtocolType)), listenerSet("pay", "ls", extra)}},
			want: []string{"infra/gw#web", "infra/gw pay/ls#extra", "infra/gw shop/ls#extra", "infra/gw shop/ls#other"},
		},
		{
			name: "Selector admits the ListenerSets of the namespaces it matches",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(sel, web)},
				ListenerSets:    []gwv1.ListenerSet{listenerSet("shop", "ls", extra), listenerSet("pay", "ls", extra)},
				NamespaceLabels: map[string]map[string]string{"shop": {"listeners": "ok"}, "pay": {"listeners": "no"}}},
			want: []string{"infra/gw#web", "infra/gw shop/ls#extra"},
		},
		{
			name: "a route to a ListenerSet attaches to the listener its sectionName or port selects",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(all, web)},
				ListenerSets: []gwv1.ListenerSet{listenerSet("shop", "ls", extra, listener("other", 8081, gwv1.HTTPProtocolType))},
				HTTPRoutes:   []gwv1.HTTPRoute{httpRoute("shop", "by-name", toLS("shop", "ls", "other", 0)), httpRoute("shop", "by-port", toLS("shop", "ls", "", 8080)), httpRoute("shop", "no-port", toLS("shop", "ls", "", 9999))}},
			want:       []string{"infra/gw shop/ls#other HTTPRoute shop/by-name#rule-0", "infra/gw shop/ls#extra HTTPRoute shop/by-port#rule-0", "infra/gw#web"},
			unattached: []string{"HTTPRoute shop/no-port"},
		},
		{
			name: "a route to the Gateway does not attach to its ListenerSets' listeners",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(all, web)}, ListenerSets: []gwv1.ListenerSet{listenerSet("shop", "ls", extra)},
				HTTPRoutes: []gwv1.HTTPRoute{httpRoute("shop", "r", toGW("", 0))}},
			want: []string{"infra/gw#web HTTPRoute shop/r#rule-0", "infra/gw shop/ls#extra"},
		},
		{
			name: "allowedRoutes Same on a ListenerSet listener means the ListenerSet's namespace",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(all)},
				ListenerSets: []gwv1.ListenerSet{listenerSet("shop", "ls", gwv1.Listener{Name: "own", Port: 80, Protocol: gwv1.HTTPProtocolType})},
				HTTPRoutes:   []gwv1.HTTPRoute{httpRoute("shop", "mine", toLS("shop", "ls", "", 0)), httpRoute("infra", "theirs", toLS("shop", "ls", "", 0))}},
			want:       []string{"infra/gw shop/ls#own HTTPRoute shop/mine#rule-0"},
			unattached: []string{"HTTPRoute infra/theirs"},
		},
		{
			name: "a TCPRoute attaches to the TCP listener its port or sectionName selects, not to an HTTP one",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(nil, web, listener("db", 5432, gwv1.TCPProtocolType), listener("db2", 5433, gwv1.TCPProtocolType))},
				TCPRoutes: []gwv1.TCPRoute{tcpRoute("shop", "by-port", toGW("", 5432)), tcpRoute("shop", "by-name", toGW("db2", 0)), tcpRoute("shop", "on-http", toGW("web", 0))}},
			want:       []string{"infra/gw#db2 TCPRoute shop/by-name#db", "infra/gw#db TCPRoute shop/by-port#db", "infra/gw#web"},
			unattached: []string{"TCPRoute shop/on-http"},
		},
		{
			name: "UDP and TLS routes attach to listeners of their protocol; allowedRoutes kinds can narrow a listener",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(nil, listener("dns", 53, gwv1.UDPProtocolType), listener("tls", 443, gwv1.TLSProtocolType),
				func() gwv1.Listener {
					l := listener("tcp-only", 9000, gwv1.TLSProtocolType)
					l.AllowedRoutes.Kinds = []gwv1.RouteGroupKind{{Kind: "TCPRoute"}}
					return l
				}())},
				UDPRoutes: []gwv1.UDPRoute{udpRoute("shop", "dns", toGW("", 0))},
				TLSRoutes: []gwv1.TLSRoute{tlsRoute("shop", "sni", toGW("", 0))}},
			want: []string{"infra/gw#dns UDPRoute shop/dns#rule-0", "infra/gw#tls TLSRoute shop/sni#rule-0", "infra/gw#tcp-only"},
		},
		{
			name: "listener and route hostnames must intersect (wildcards cover one or more labels)",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(nil, withHost(web, "*.example.com"), withHost(listener("api", 81, gwv1.HTTPProtocolType), "api.example.com"))},
				HTTPRoutes: []gwv1.HTTPRoute{withHosts(httpRoute("shop", "deep", toGW("", 0)), "a.b.example.com"), withHosts(httpRoute("shop", "other", toGW("", 0)), "example.org"),
					withHosts(httpRoute("shop", "wild", toGW("", 0)), "*.example.com"), httpRoute("shop", "any", toGW("", 0))}},
			want: []string{"infra/gw#web HTTPRoute shop/any#rule-0", "infra/gw#api HTTPRoute shop/any#rule-0", "infra/gw#web HTTPRoute shop/deep#rule-0",
				"infra/gw#web HTTPRoute shop/wild#rule-0", "infra/gw#api HTTPRoute shop/wild#rule-0"},
			unattached: []string{"HTTPRoute shop/other"},
		},
		{
			name: "a TCPRoute attaches through a ListenerSet's TCP listener",
			in: topology.Input{Gateways: []gwv1.Gateway{gateway(all)},
				ListenerSets: []gwv1.ListenerSet{listenerSet("shop", "ls", extra, listener("db", 5432, gwv1.TCPProtocolType))},
				TCPRoutes:    []gwv1.TCPRoute{tcpRoute("shop", "db", toLS("shop", "ls", "", 0))}},
			want: []string{"infra/gw shop/ls#db TCPRoute shop/db#db", "infra/gw shop/ls#extra"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := topology.Build(tt.in)
			var got, unattached []string
			for _, i := range g.PathIndexes() {
				got = append(got, pathString(g.Paths[i]))
			}
			for _, u := range g.Unattached {
				unattached = append(unattached, u.Kind+" "+topology.Key{Namespace: u.Namespace, Name: u.Name}.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.unattached, unattached); diff != "" {
				t.Errorf("unattached (-want +got):\n%s", diff)
			}
		})
	}
}

// TestListenerSetLevels: a path through a ListenerSet has the ListenerSet between the Gateway and
// the listener, and a policy on the ListenerSet (whole or a listener) reaches the routes attached
// through it.
func TestListenerSetLevels(t *testing.T) {
	in := topology.Input{Gateways: []gwv1.Gateway{gateway(ptr.To(gwv1.NamespacesFromAll), listener("web", 80, gwv1.HTTPProtocolType))},
		ListenerSets: []gwv1.ListenerSet{listenerSet("shop", "ls", listener("a", 8080, gwv1.HTTPProtocolType), listener("b", 8081, gwv1.HTTPProtocolType))},
		HTTPRoutes:   []gwv1.HTTPRoute{httpRoute("shop", "r", toLS("shop", "ls", "a", 0))}}
	g := topology.Build(in)
	ls := topology.Target{Kind: "ListenerSet", Namespace: "shop", Name: "ls"}
	var got []string
	for _, i := range g.PathsFor(ls) {
		var levels []string
		for _, lt := range g.Paths[i].Targets() {
			levels = append(levels, lt.Level.String()+"="+lt.Target.String())
		}
		got = append(got, pathString(g.Paths[i])+": "+strings.Join(levels, ", "))
	}
	want := []string{
		"infra/gw shop/ls#a HTTPRoute shop/r#rule-0: gatewayclass=GatewayClass c, gateway=Gateway infra/gw, listenerset=ListenerSet shop/ls, listener=ListenerSet shop/ls#a, route=HTTPRoute shop/r, rule=HTTPRoute shop/r#rule-0",
		"infra/gw shop/ls#b: gatewayclass=GatewayClass c, gateway=Gateway infra/gw, listenerset=ListenerSet shop/ls, listener=ListenerSet shop/ls#b",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths beneath the ListenerSet (-want +got):\n%s", diff)
	}
	section := ls
	section.Section = "a"
	if n := len(g.PathsFor(section)); n != 1 {
		t.Errorf("paths beneath ListenerSet shop/ls#a: %d, want the route's 1", n)
	}
	for _, tc := range []struct {
		t    topology.Target
		want bool
	}{{ls, true}, {section, true}, {topology.Target{Kind: "ListenerSet", Namespace: "shop", Name: "ls", Section: "zz"}, false}, {topology.Target{Kind: "ListenerSet", Namespace: "shop", Name: "nope"}, false}} {
		if got := g.Exists(tc.t); got != tc.want {
			t.Errorf("Exists(%s) = %v, want %v", tc.t, got, tc.want)
		}
	}
}

func TestHostnamesIntersect(t *testing.T) {
	tests := []struct {
		listener string
		route    []string
		want     bool
	}{
		{"", []string{"a.example.com"}, true},
		{"a.example.com", nil, true},
		{"a.example.com", []string{"a.example.com"}, true},
		{"a.example.com", []string{"b.example.com"}, false},
		{"*.example.com", []string{"a.example.com"}, true},
		{"*.example.com", []string{"a.b.example.com"}, true},
		{"*.example.com", []string{"example.com"}, false},
		{"a.example.com", []string{"*.example.com"}, true},
		{"*.example.com", []string{"*.b.example.com"}, true},
		{"*.b.example.com", []string{"*.example.com"}, true},
		{"*.example.com", []string{"*.example.org", "x.example.com"}, true},
		{"*.example.com", []string{"badexample.com"}, false},
	}
	for _, tt := range tests {
		var l *gwv1.Hostname
		if tt.listener != "" {
			l = ptr.To(gwv1.Hostname(tt.listener))
		}
		if got := topology.HostnamesIntersect(l, tt.route); got != tt.want {
			t.Errorf("HostnamesIntersect(%q, %q) = %v, want %v", tt.listener, tt.route, got, tt.want)
		}
	}
}
