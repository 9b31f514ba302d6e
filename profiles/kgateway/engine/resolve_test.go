package engine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDelegation follows kgateway's route delegation (design/10943-route-delegation.md, the
// delegation docs): a backendRef of group gateway.networking.k8s.io and kind HTTPRoute names a child
// route (namespace defaulting to the parent's); one of group delegation.kgateway.dev and kind label
// selects the routes labelled delegation.kgateway.dev/label=<name> in its namespace, or in every
// namespace for `all` (api/labels/delegation.go); delegation nests, and every parent route's
// policies are inherited under its own annotation (MergePolicies' cross-hierarchy pass, one
// HierarchicalPriority per route of the chain).
func TestDelegation(t *testing.T) {
	base := []*unstructured.Unstructured{gateway("infra", "gw", "")}
	cases := []struct {
		name   string
		objs   []*unstructured.Unstructured
		leaf   Key
		chains [][]string
		want   map[string]string
	}{
		{"by name, namespace defaulted to the parent's", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, obj{"backendRefs": list{obj{"group": GatewayGroup, "kind": "HTTPRoute", "name": "child"}}}),
			route("infra", "child", "", "", nil, backend()),
			tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"cors": obj{}}),
		}, Key{"infra", "child"}, [][]string{{"infra/root", "infra/child"}}, map[string]string{"cors": "root-tp"}},
		{"by label in one namespace", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegateLabel("team1", "team1")),
			route("team1", "a", "", "", map[string]string{DelegationLabel: "team1"}, backend()),
			route("team2", "b", "", "", map[string]string{DelegationLabel: "team1"}, backend()),
			tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"cors": obj{}}),
		}, Key{"team2", "b"}, nil, map[string]string{}},
		{"by label in every namespace (`all`)", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegateLabel(WildcardNamespace, "wildcard")),
			route("team2", "b", "", "", map[string]string{DelegationLabel: "wildcard"}, backend()),
			tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"cors": obj{}}),
		}, Key{"team2", "b"}, [][]string{{"infra/root", "team2/b"}}, map[string]string{"cors": "root-tp"}},
		{"grandchild inherits from both ancestors, the grandparent prefers itself", []*unstructured.Unstructured{
			route("infra", "root", "gw", ShallowPreferParent, nil, delegate("mid", "mid")),
			route("mid", "mid", "", "", nil, delegate("leaf", "leaf")),
			route("leaf", "leaf", "", "", nil, backend()),
			tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"cors": obj{}}),
			tp("mid", "mid-tp", 0, list{ref("HTTPRoute", "mid", "")}, obj{"cors": obj{}, "timeouts": obj{}}),
			tp("leaf", "leaf-tp", 0, list{ref("HTTPRoute", "leaf", "")}, obj{"timeouts": obj{}, "rateLimit": obj{}}),
		}, Key{"leaf", "leaf"}, [][]string{{"infra/root", "mid/mid", "leaf/leaf"}}, map[string]string{"cors": "root-tp", "timeouts": "leaf-tp", "rateLimit": "leaf-tp"}},
		{"two parents give two paths", []*unstructured.Unstructured{
			route("infra", "p1", "gw", "", nil, delegate("team", "child")),
			route("infra", "p2", "gw", "", nil, delegate("team", "child")),
			route("team", "child", "", "", nil, backend()),
		}, Key{"team", "child"}, [][]string{{"infra/p1", "team/child"}, {"infra/p2", "team/child"}}, map[string]string{}},
		{"a cycle ends", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegate("infra", "a")),
			route("infra", "a", "", "", nil, delegate("infra", "b"), backend()),
			route("infra", "b", "", "", nil, delegate("infra", "a")),
		}, Key{"infra", "a"}, [][]string{{"infra/root", "infra/a"}}, map[string]string{}},
		{"a backendRef named \"*\" selects every route of its namespace", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegate("team", "*")),
			route("team", "a", "", "", nil, backend()),
			route("team", "b", "", "", nil, backend()),
			tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"cors": obj{}}),
		}, Key{"team", "b"}, [][]string{{"infra/root", "team/b"}}, map[string]string{"cors": "root-tp"}},
		{"an empty backendRef name selects every route of its namespace", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegate("team", "")),
			route("team", "a", "", "", nil, backend()),
		}, Key{"team", "a"}, [][]string{{"infra/root", "team/a"}}, map[string]string{}},
		{"a child whose parentRefs name another route is not attached", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegate("team", "*")),
			childOf(route("team", "a", "", "", nil, backend()), "infra", "other"),
		}, Key{"team", "a"}, nil, map[string]string{}},
		{"a child whose parentRefs name the parent is attached", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegate("team", "*")),
			childOf(route("team", "a", "", "", nil, backend()), "infra", "root"),
		}, Key{"team", "a"}, [][]string{{"infra/root", "team/a"}}, map[string]string{}},
		{"a child that sets hostnames is not attached", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegate("team", "a")),
			withHosts(route("team", "a", "", "", nil, backend()), "a.example.com"),
		}, Key{"team", "a"}, nil, map[string]string{}},
		{"a child rule whose path is not under the parent's is dropped", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, matching(delegate("team", "a"), "/api")),
			route("team", "a", "", "", nil, matching(backend(), "/web")),
		}, Key{"team", "a"}, nil, map[string]string{}},
		{"a child rule whose path lies under the parent's is kept", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, matching(delegate("team", "a"), "/api")),
			route("team", "a", "", "", nil, matching(backend(), "/api/v1")),
		}, Key{"team", "a"}, [][]string{{"infra/root", "team/a"}}, map[string]string{}},
		{"a child inheriting the parent's matcher keeps every rule", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, matching(delegate("team", "a"), "/api")),
			inheriting(route("team", "a", "", "", nil, matching(backend(), "/web"))),
		}, Key{"team", "a"}, [][]string{{"infra/root", "team/a"}}, map[string]string{}},
		{"a delegated rule carries no traffic of its own", []*unstructured.Unstructured{
			route("infra", "root", "gw", "", nil, delegate("infra", "missing")),
		}, Key{"infra", "root"}, nil, map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := New(append(append([]*unstructured.Unstructured(nil), base...), c.objs...))
			v := View{World: w}
			var chains [][]string
			got := map[string]string{}
			for _, p := range v.Paths(c.leaf) {
				var ch []string
				for _, h := range p.Chain {
					ch = append(ch, h.Route.String())
				}
				chains = append(chains, ch)
				got = fields(v.Compute(p))
			}
			if d := cmp.Diff(c.chains, chains); d != "" {
				t.Errorf("chains (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("fields (-want +got):\n%s", d)
			}
		})
	}
}

// TestWriteWarnings: a child's field that a parent preferring itself replaces (OverridableShallow
// in the cross-hierarchy merge) is named with the parent; so is one a more specific policy of the
// same route takes (the sameHierarchy pass). A targetRef naming nothing is warned of.
func TestWriteWarnings(t *testing.T) {
	objs := []*unstructured.Unstructured{
		gateway("infra", "gw", ""),
		route("infra", "root", "gw", ShallowPreferParent, nil, delegate("shop", "cart")),
		route("shop", "cart", "", "", nil, backend()),
		tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"rateLimit": obj{}}),
		tp("shop", "older", 0, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
	}
	cases := []struct {
		name  string
		write *unstructured.Unstructured
		want  []string
	}{
		{"parent prefers itself", tp("shop", "mine", 5, list{ref("HTTPRoute", "cart", "")}, obj{"rateLimit": obj{}, "timeouts": obj{}}),
			[]string{"PRC-W230 your `rateLimit` on route shop/cart is ignored: parent route infra/root sets ShallowMergePreferParent"}},
		{"an older policy on the same route", tp("shop", "mine", 5, list{ref("HTTPRoute", "cart", "")}, obj{"cors": obj{}}),
			[]string{"PRC-W231 your `cors` on route shop/cart is ignored: TrafficPolicy shop/older sets it first at the same level (more specific attachment, or older)"}},
		{"nothing displaced", tp("shop", "mine", 5, list{ref("HTTPRoute", "cart", "")}, obj{"timeouts": obj{}}), nil},
		{"a route that does not exist", tp("shop", "mine", 5, list{ref("HTTPRoute", "carts", "")}, obj{"timeouts": obj{}}),
			[]string{"PRC-W234 HTTPRoute shop/carts does not exist: this TrafficPolicy applies nowhere through it"}},
		{"a Gateway listener that does not exist", tp("infra", "mine", 5, list{ref("Gateway", "gw", "https")}, obj{"timeouts": obj{}}),
			[]string{"PRC-W234 Gateway infra/gw has no listener \"https\": this TrafficPolicy applies nowhere through it"}},
		{"a Gateway listener that exists", tp("infra", "mine", 5, list{ref("Gateway", "gw", "http")}, obj{"timeouts": obj{}}), nil},
	}
	w := New(objs)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, errs := Read(c.write)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if d := cmp.Diff(c.want, w.WriteWarnings(p)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestChangeMode counts the child routes an annotation change on a parent route or a Gateway takes a
// field away from (prefer parent → prefer child: the children's own values win again) or overrides.
func TestChangeMode(t *testing.T) {
	objs := []*unstructured.Unstructured{
		gateway("infra", "gw", ""),
		route("infra", "root", "gw", ShallowPreferParent, nil, delegateLabel(WildcardNamespace, "shop")),
		tp("infra", "root-tp", 0, list{ref("HTTPRoute", "root", "")}, obj{"cors": obj{}, "rateLimit": obj{}}),
		tp("infra", "gw-tp", 0, list{ref("Gateway", "gw", "")}, obj{"extAuth": obj{}}),
	}
	for i := 0; i < 12; i++ {
		ns := fmt.Sprintf("team%d", i)
		objs = append(objs, route(ns, "r", "", "", map[string]string{DelegationLabel: "shop"}, backend()),
			tp(ns, "own", 1, list{ref("HTTPRoute", "r", "")}, obj{"cors": obj{}, "extAuth": obj{}}))
	}
	w := New(objs)
	cases := []struct {
		name  string
		owner string
		mode  Mode
		want  []string
	}{
		{"parent route to prefer child", "route infra/root", ShallowPreferChild, []string{"PRC-W232 this annotation change takes `cors` away from 12 child routes"}},
		{"parent route unchanged", "route infra/root", ShallowPreferParent, nil},
		// kgateway 2.2 never reads a Gateway's annotation: nothing changes beneath it.
		{"Gateway to prefer parent", "gateway infra/gw", ShallowPreferParent, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, w.ChangeMode(c.owner, c.mode).Warnings()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestGatewayModeIgnored: on kgateway 2.2 a Gateway annotated ShallowMergePreferParent does not make
// its TrafficPolicy's fields win over a route's: the route's own value holds.
func TestGatewayModeIgnored(t *testing.T) {
	w := New([]*unstructured.Unstructured{
		gateway("infra", "gw", ShallowPreferParent),
		route("infra", "r", "gw", "", nil, backend()),
		tp("infra", "gw-tp", 0, list{ref("Gateway", "gw", "")}, obj{"cors": obj{"maxAge": int64(1)}}),
		tp("infra", "r-tp", 1, list{ref("HTTPRoute", "r", "")}, obj{"cors": obj{"maxAge": int64(2)}}),
	})
	v := View{World: w}
	paths := v.Paths(Key{"infra", "r"})
	if len(paths) == 0 {
		t.Fatal("no path through infra/r")
	}
	for _, p := range paths {
		if got := fields(v.Compute(p))["cors"]; got != "r-tp" {
			t.Errorf("cors on %v from %q, want r-tp (the Gateway's annotation is not read)", p, got)
		}
	}
}
