package topology

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func gateway(ns, name string, listeners ...gwv1.Listener) gwv1.Gateway {
	return gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: gwv1.GatewaySpec{GatewayClassName: "c", Listeners: listeners}}
}

func listener(name string, port gwv1.PortNumber, proto gwv1.ProtocolType, ar *gwv1.AllowedRoutes) gwv1.Listener {
	return gwv1.Listener{Name: gwv1.SectionName(name), Port: port, Protocol: proto, AllowedRoutes: ar}
}

func from(f gwv1.FromNamespaces, sel *metav1.LabelSelector) *gwv1.AllowedRoutes {
	return &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &f, Selector: sel}}
}

func route(ns, name string, parent gwv1.ParentReference, rules ...string) gwv1.HTTPRoute {
	r := gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	r.Spec.ParentRefs = []gwv1.ParentReference{parent}
	for _, n := range rules {
		rule := gwv1.HTTPRouteRule{}
		if n != "" {
			rule.Name = ptr.To(gwv1.SectionName(n))
		}
		r.Spec.Rules = append(r.Spec.Rules, rule)
	}
	return r
}

func parent(ns, name, section string, port gwv1.PortNumber) gwv1.ParentReference {
	p := gwv1.ParentReference{Name: gwv1.ObjectName(name)}
	if ns != "" {
		p.Namespace = ptr.To(gwv1.Namespace(ns))
	}
	if section != "" {
		p.SectionName = ptr.To(gwv1.SectionName(section))
	}
	if port != 0 {
		p.Port = ptr.To(port)
	}
	return p
}

func TestAttachment(t *testing.T) {
	gw := gateway("infra", "gw",
		listener("same", 80, gwv1.HTTPProtocolType, nil),
		listener("all", 8080, gwv1.HTTPProtocolType, from(gwv1.NamespacesFromAll, nil)),
		listener("labelled", 8443, gwv1.HTTPSProtocolType, from(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "shop"}})),
		listener("tcp", 9000, gwv1.TCPProtocolType, from(gwv1.NamespacesFromAll, nil)),
	)
	tests := []struct {
		name       string
		route      gwv1.HTTPRoute
		want       []Path
		unattached bool
	}{
		{"same namespace attaches to Same and All listeners", route("infra", "r", parent("", "gw", "", 0), "main"), []Path{
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "same", RouteKind: "HTTPRoute", Route: Key{"infra", "r"}, Rule: "main"},
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "all", RouteKind: "HTTPRoute", Route: Key{"infra", "r"}, Rule: "main"},
		}, false},
		{"other namespace with matching labels", route("shop", "r", parent("infra", "gw", "", 0), "main"), []Path{
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "all", RouteKind: "HTTPRoute", Route: Key{"shop", "r"}, Rule: "main"},
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "labelled", RouteKind: "HTTPRoute", Route: Key{"shop", "r"}, Rule: "main"},
		}, false},
		{"sectionName picks one listener", route("shop", "r", parent("infra", "gw", "labelled", 0), "main"), []Path{
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "labelled", RouteKind: "HTTPRoute", Route: Key{"shop", "r"}, Rule: "main"},
		}, false},
		{"port picks listeners", route("shop", "r", parent("infra", "gw", "", 8080), "main"), []Path{
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "all", RouteKind: "HTTPRoute", Route: Key{"shop", "r"}, Rule: "main"},
		}, false},
		{"sectionName of a listener that does not allow the namespace", route("other", "r", parent("infra", "gw", "same", 0), "main"), nil, true},
		{"unnamed rules get stable names", route("infra", "r", parent("", "gw", "same", 0), "", "named", ""), []Path{
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "same", RouteKind: "HTTPRoute", Route: Key{"infra", "r"}, Rule: "rule-0"},
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "same", RouteKind: "HTTPRoute", Route: Key{"infra", "r"}, Rule: "named"},
			{Class: "c", Gateway: Key{"infra", "gw"}, Listener: "same", RouteKind: "HTTPRoute", Route: Key{"infra", "r"}, Rule: "rule-2"},
		}, false},
		{"missing gateway", route("infra", "r", parent("", "nope", "", 0), "main"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Build(Input{Gateways: []gwv1.Gateway{gw}, HTTPRoutes: []gwv1.HTTPRoute{tt.route},
				NamespaceLabels: map[string]map[string]string{"shop": {"team": "shop"}}})
			rt := Target{Kind: "HTTPRoute", Namespace: tt.route.Namespace, Name: tt.route.Name}
			var got []Path
			for _, i := range g.PathsFor(rt) {
				got = append(got, g.Paths[i])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if un := len(g.Unattached) == 1 && g.Unattached[0] == rt; un != tt.unattached {
				t.Errorf("unattached = %v, want %v", g.Unattached, tt.unattached)
			}
			if !g.Exists(rt) {
				t.Errorf("route target does not exist")
			}
			if len(got) > 0 && !g.Exists(Target{Kind: "HTTPRoute", Namespace: rt.Namespace, Name: rt.Name, Section: got[0].Rule}) {
				t.Errorf("rule target %s does not exist", got[0].Rule)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	gw := gateway("infra", "gw", listener("a", 80, gwv1.HTTPProtocolType, from(gwv1.NamespacesFromAll, nil)), listener("b", 81, gwv1.HTTPProtocolType, nil))
	g := Build(Input{Gateways: []gwv1.Gateway{gw}, HTTPRoutes: []gwv1.HTTPRoute{route("shop", "r", parent("infra", "gw", "", 0), "x", "y")}})
	count := func(t Target) int { return len(g.PathsFor(t)) }
	for _, c := range []struct {
		t    Target
		want int
	}{
		{Target{Kind: "Gateway", Namespace: "infra", Name: "gw"}, 3},               // two rules on listener a, and listener b alone
		{Target{Kind: "Gateway", Namespace: "infra", Name: "gw", Section: "a"}, 2}, // the route's two rules
		{Target{Kind: "Gateway", Namespace: "infra", Name: "gw", Section: "b"}, 1}, // no route: the listener's own path
		{Target{Kind: "HTTPRoute", Namespace: "shop", Name: "r"}, 2},
		{Target{Kind: "HTTPRoute", Namespace: "shop", Name: "r", Section: "y"}, 1},
		{Target{Kind: "GatewayClass", Name: "c"}, 3},
		{Target{Kind: "HTTPRoute", Namespace: "infra", Name: "r"}, 0},
	} {
		if got := count(c.t); got != c.want {
			t.Errorf("PathsFor(%s) = %d paths, want %d", c.t, got, c.want)
		}
	}
}

// TestPlaceID: the paths of one route share a place on every rule, listener and Gateway; a
// listener without routes is a place of its own, and another route is another place.
func TestPlaceID(t *testing.T) {
	gw1 := gateway("infra", "gw1", listener("a", 80, gwv1.HTTPProtocolType, from(gwv1.NamespacesFromAll, nil)), listener("b", 81, gwv1.HTTPProtocolType, nil))
	gw2 := gateway("infra", "gw2", listener("a", 80, gwv1.HTTPProtocolType, from(gwv1.NamespacesFromAll, nil)))
	r := route("shop", "r", parent("infra", "gw1", "a", 0), "x", "y")
	r.Spec.ParentRefs = append(r.Spec.ParentRefs, parent("infra", "gw2", "", 0))
	other := route("shop", "other", parent("infra", "gw2", "", 0), "z")
	g := Build(Input{Gateways: []gwv1.Gateway{gw1, gw2}, HTTPRoutes: []gwv1.HTTPRoute{r, other}})
	byPlace := map[int32][]string{}
	for i, p := range g.Paths {
		id := g.PlaceID(i)
		if first := g.Paths[id]; first.Route != p.Route || (p.RouteKind == "" && (first.Gateway != p.Gateway || first.Listener != p.Listener)) {
			t.Errorf("path %d (%+v) has the place of path %d (%+v)", i, p, id, first)
		}
		name := p.Route.String()
		if p.RouteKind == "" {
			name = p.Gateway.String() + "/" + p.Listener
		}
		byPlace[id] = append(byPlace[id], name)
	}
	want := map[string]int{"shop/r": 4, "shop/other": 1, "infra/gw1/b": 1} // r: 2 rules on gw1/a and on gw2/a
	if len(byPlace) != len(want) {
		t.Fatalf("places = %v, want one each for %v", byPlace, want)
	}
	for _, names := range byPlace {
		if want[names[0]] != len(names) {
			t.Errorf("place %s has %d paths, want %d", names[0], len(names), want[names[0]])
		}
		for _, n := range names {
			if n != names[0] {
				t.Errorf("one place holds %s and %s", names[0], n)
			}
		}
	}
}

// TestKeyCompareOrdersAsString: Key.Compare orders keys exactly as their String forms do, including
// namespaces that are prefixes of one another and keys without a namespace.
func TestKeyCompareOrdersAsString(t *testing.T) {
	keys := []Key{
		{"a", "b"}, {"a-x", "c"}, {"a", "a-x"}, {"ab", ""}, {"", "a/b"}, {"", "a"}, {"", "b"},
		{"app-1", "route-10"}, {"app-10", "route-1"}, {"app-1", "route-9"}, {"app-1", "route-10"},
		{"a.b", "c"}, {"a", "/"}, {"", ""}, {"infra", "gw-0"}, {"infra", "gw-0-x"},
		{"app-2", "route-1"}, {"app-12", "a"}, {"b", "a"}, {"ba", "a"}, {"a0", "z"},
	}
	for _, a := range keys {
		for _, b := range keys {
			want := strings.Compare(a.String(), b.String())
			if got := a.Compare(b); got != want {
				t.Errorf("%#v.Compare(%#v) = %d, want %d (as %q vs %q)", a, b, got, want, a.String(), b.String())
			}
		}
	}
}
