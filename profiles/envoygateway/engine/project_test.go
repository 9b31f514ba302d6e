package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Warnings of writes other than the replacement, conflict and no-chaining cases (resolve_test.go).
func TestProjectionWarnings(t *testing.T) {
	gwAuth := pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "jwt": obj{"providers": list{obj{"name": "a"}}}, "cors": obj{}})
	cartAuth := pol(t, SecurityPolicy, "shop", "cart-auth", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge", "extAuth": obj{}})
	labelled := func(in Input) Input {
		in.Objects = []Object{
			{Kind: "HTTPRoute", Key: topology.Key{Namespace: "shop", Name: "cart"}, Labels: map[string]string{"tier": "gold"}},
			{Kind: "HTTPRoute", Key: topology.Key{Namespace: "shop", Name: "shelf"}, Labels: map[string]string{"tier": "gold"}},
		}
		return in
	}
	selector := func(from string) *Policy {
		return pol(t, SecurityPolicy, "platform", "gold-auth", 0, obj{"targetSelectors": list{obj{"kind": "HTTPRoute", "matchLabels": obj{"tier": "gold"}, "namespaces": obj{"from": from}}}, "cors": obj{}})
	}
	grant := ReferenceGrant{Namespace: "shop", From: []GrantFrom{{Group: Group, Kind: SecurityPolicy, Namespace: "platform"}}, To: []GrantTo{{Group: topology.Group, Kind: "HTTPRoute", Name: "cart"}}}
	for _, c := range []struct {
		name  string
		in    Input
		world []*Policy
		write Write
		want  []string
	}{
		{"missing target: Envoy Gateway writes no status", shop(), nil,
			Write{New: pol(t, SecurityPolicy, "shop", "typo", 0, obj{"targetRefs": refs(ref("HTTPRoute", "kart")), "cors": obj{}})},
			[]string{"PRC-W011 target HTTPRoute shop/kart not found: Envoy Gateway ignores it and writes no status for it"}},
		{"missing rule section", shop(), nil,
			Write{New: pol(t, SecurityPolicy, "shop", "typo", 0, obj{"targetRefs": refs(sref("HTTPRoute", "cart", "checkout")), "cors": obj{}})},
			[]string{"PRC-W011 target HTTPRoute shop/cart#checkout not found: HTTPRoute shop/cart has no section checkout; Envoy Gateway writes Accepted=False (TargetNotFound) on the ancestor"}},
		{"selector across namespaces without a ReferenceGrant is ignored", labelled(shop()), nil,
			Write{New: selector("All")},
			[]string{
				"PRC-W018 targetSelectors match HTTPRoute shop/cart is ignored: no ReferenceGrant in shop lets SecurityPolicy from platform reach it",
				"PRC-W018 targetSelectors match HTTPRoute shop/shelf is ignored: no ReferenceGrant in shop lets SecurityPolicy from platform reach it",
			}},
		{"a ReferenceGrant admits the route it names", func() Input { in := labelled(shop()); in.ReferenceGrants = []ReferenceGrant{grant}; return in }(), nil,
			Write{New: selector("All")},
			[]string{"PRC-W018 targetSelectors match HTTPRoute shop/shelf is ignored: no ReferenceGrant in shop lets SecurityPolicy from platform reach it"}},
		{"selector in the same namespace only by default", labelled(shop()), nil,
			Write{New: selector("Same")}, nil},
		{"deleting a gateway policy says which routes lose which fields", shop(), []*Policy{gwAuth, cartAuth},
			Write{Old: gwAuth},
			[]string{
				"PRC-W023 deleting envoy-gateway-system/gw-auth removes `cors`, `jwt` on route shop/cart",
				"PRC-W023 deleting envoy-gateway-system/gw-auth removes `cors`, `jwt` on route shop/shelf",
				"PRC-W023 deleting envoy-gateway-system/gw-auth removes `cors`, `jwt` on route shop/team-route",
				"PRC-N004 changes the effective SecurityPolicy of 3 places: route shop/cart, route shop/shelf, route shop/team-route",
			}},
		{"a gateway write summarizes the places it changes", shop(), []*Policy{gwAuth, cartAuth},
			Write{Old: gwAuth, New: pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "jwt": obj{"providers": list{obj{"name": "a"}}}, "cors": obj{"allowOrigins": list{"x"}}})},
			[]string{"PRC-N004 changes the effective SecurityPolicy of 3 places: route shop/cart, route shop/shelf, route shop/team-route"}},
		{"an unchanged gateway write changes nothing", shop(), []*Policy{gwAuth, cartAuth},
			Write{Old: gwAuth, New: gwAuth}, nil},
		{"a listener policy replaces the Gateway's whole, on the routes beneath it without their own", shop(), []*Policy{gwAuth, cartAuth},
			Write{New: pol(t, SecurityPolicy, gwNS, "https-auth", 1, obj{"targetRefs": refs(sref("Gateway", "eg", "https")), "cors": obj{}})},
			[]string{
				"PRC-W021 replaces `cors`, `jwt` of envoy-gateway-system/gw-auth beneath Gateway envoy-gateway-system/eg#https (Envoy Gateway: the most specific policy replaces the broader one whole)",
				"PRC-N004 changes the effective SecurityPolicy of 1 place: route shop/shelf",
			}},
		{"an update of a listener policy that already held its listener displaces nothing new", shop(),
			[]*Policy{gwAuth, pol(t, SecurityPolicy, gwNS, "https-auth", 1, obj{"targetRefs": refs(sref("Gateway", "eg", "https")), "cors": obj{}})},
			Write{Old: pol(t, SecurityPolicy, gwNS, "https-auth", 1, obj{"targetRefs": refs(sref("Gateway", "eg", "https")), "cors": obj{}}),
				New: pol(t, SecurityPolicy, gwNS, "https-auth", 1, obj{"targetRefs": refs(sref("Gateway", "eg", "https")), "cors": obj{"allowOrigins": list{"x"}}})},
			[]string{"PRC-N004 changes the effective SecurityPolicy of 1 place: route shop/shelf"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := snapshot(c.in, c.world...)
			if d := cmp.Diff(c.want, s.Project(c.write).Warnings()); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

// The effective policy of every reached path in the CLI contract's shape: the listener shown where
// a policy splits the Gateway's listeners, the rule where one splits the route's rules.
func TestItemsInTheCLIShape(t *testing.T) {
	gw := pol(t, BackendTrafficPolicy, gwNS, "gw", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "retry": obj{}})
	rule := pol(t, BackendTrafficPolicy, "shop", "pay", 0, obj{"targetRefs": refs(sref("HTTPRoute", "cart", "admin")), "timeout": obj{}})
	got := snapshot(shop(), gw, rule).Items(BackendTrafficPolicy)
	var keys [][4]string
	for _, it := range got {
		keys = append(keys, [4]string{it.Gateway, it.Listener, it.Route, it.Rule})
	}
	want := [][4]string{
		{gwNS + "/eg", "", "shop/cart", "admin"},
		{gwNS + "/eg", "", "shop/cart", "main"},
		{gwNS + "/eg", "", "shop/db", ""},
		{gwNS + "/eg", "", "shop/shelf", ""},
		{gwNS + "/eg", "ListenerSet shop/team#team-http", "shop/team-route", ""},
	}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("item keys (-want +got):\n%s", d)
	}
	if got[0].Kind != BackendTrafficPolicy || got[0].Sources["timeout"] != "shop/pay" {
		t.Errorf("first item %+v, want the rule policy's timeout", got[0])
	}
}
