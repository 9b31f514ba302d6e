package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// mergeType is allowed only on route targets and never Replace (the CRDs' CEL on
// BackendTrafficPolicy, SecurityPolicy and EnvoyExtensionPolicy); ClientTrafficPolicy has none.
func TestStatelessMergeType(t *testing.T) {
	for _, c := range []struct {
		name string
		kind string
		spec obj
		want field.ErrorList
	}{
		{"route target with StrategicMerge", SecurityPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge"}, nil},
		{"no mergeType on a gateway", SecurityPolicy, obj{"targetRefs": refs(ref("Gateway", "eg"))}, nil},
		{"gateway target with mergeType", BackendTrafficPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart"), ref("Gateway", "eg")), "mergeType": "JSONMerge"},
			field.ErrorList{field.Forbidden(field.NewPath("spec", "targetRefs").Index(1).Child("kind"), "mergeType is only allowed on route targets; Gateway eg is not a route")}},
		{"deprecated targetRef on a listenerset", EnvoyExtensionPolicy, obj{"targetRef": ref("ListenerSet", "team"), "mergeType": "JSONMerge"},
			field.ErrorList{field.Forbidden(field.NewPath("spec", "targetRef", "kind"), "mergeType is only allowed on route targets; ListenerSet team is not a route")}},
		{"selector of gateways", SecurityPolicy, obj{"targetSelectors": list{obj{"kind": "Gateway", "matchLabels": obj{"a": "b"}}}, "mergeType": "StrategicMerge"},
			field.ErrorList{field.Forbidden(field.NewPath("spec", "targetSelectors").Index(0).Child("kind"), "mergeType is only allowed on route targets; Gateway is not a route")}},
		{"Replace", SecurityPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "Replace"},
			field.ErrorList{field.Forbidden(field.NewPath("spec", "mergeType"), "Replace is not allowed on policies: use StrategicMerge or JSONMerge, or leave mergeType unset to replace the parent policy")}},
		{"client traffic policy", ClientTrafficPolicy, obj{"targetRefs": refs(ref("Gateway", "eg")), "mergeType": "StrategicMerge"},
			field.ErrorList{field.Forbidden(field.NewPath("spec", "mergeType"), "ClientTrafficPolicy applies to listeners and does not merge")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, Stateless(pol(t, c.kind, "shop", "p", 0, c.spec))); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// The combined checks run on the merged result (envoyproxy/gateway #9722), each after Envoy
// Gateway's own rule (see CombinedChecks for the references).
func TestCombinedChecksOnTheMergedResult(t *testing.T) {
	gwJWT := pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")),
		"jwt": obj{"providers": list{obj{"name": "corp", "extractFrom": obj{"cookies": list{"token"}}}}}})
	for _, c := range []struct {
		name  string
		world []*Policy
		write *Policy
		want  []string
	}{
		{"oidc passthrough valid with the gateway's jwt reading a header",
			[]*Policy{pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "jwt": obj{"providers": list{obj{"name": "corp"}}}})},
			pol(t, SecurityPolicy, "shop", "cart", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge", "oidc": obj{"passThroughAuthHeader": true}}),
			nil},
		{"oidc passthrough without jwt after a replacement",
			[]*Policy{gwJWT},
			pol(t, SecurityPolicy, "shop", "cart", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "oidc": obj{"passThroughAuthHeader": true}}),
			[]string{"spec.oidc.passThroughAuthHeader: Invalid value: true: needs jwt in the merged policy (route shop/cart)"}},
		{"oidc passthrough with a jwt reading only cookies",
			[]*Policy{gwJWT},
			pol(t, SecurityPolicy, "shop", "cart", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge", "oidc": obj{"passThroughAuthHeader": true}}),
			[]string{"spec.oidc.passThroughAuthHeader: Invalid value: true: needs a jwt provider that reads a header in the merged policy (route shop/cart)"}},
		{"authorization on jwt claims without jwt",
			nil,
			pol(t, SecurityPolicy, "shop", "cart", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "authorization": obj{"rules": list{obj{"action": "Allow", "principal": obj{"jwt": obj{"provider": "corp"}}}}}}),
			[]string{`spec.authorization.rules[0].principal.jwt: Invalid value: "": refers to JWT claims but the merged policy has no jwt (route shop/cart)`}},
		{"authorization on jwt claims with the gateway's jwt merged in",
			[]*Policy{gwJWT},
			pol(t, SecurityPolicy, "shop", "cart", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge", "authorization": obj{"rules": list{obj{"action": "Allow", "principal": obj{"jwt": obj{"provider": "corp"}}}}}}),
			nil},
		{"recomputeRoute without claimToHeaders",
			nil,
			pol(t, SecurityPolicy, "shop", "cart", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "jwt": obj{"providers": list{obj{"name": "corp", "recomputeRoute": true}}}}),
			[]string{"spec.jwt.providers[0].claimToHeaders: Required value: recomputeRoute needs claimToHeaders in the merged provider (route shop/cart)"}},
		{"a json merge that leaves jwt without providers",
			[]*Policy{gwJWT},
			pol(t, SecurityPolicy, "shop", "cart", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "JSONMerge", "jwt": obj{"providers": list{}}}),
			[]string{"spec.jwt.providers: Required value: the merged jwt has no provider (route shop/cart)"}},
		{"only authorization on a TCPRoute",
			nil,
			pol(t, SecurityPolicy, "shop", "db", 1, obj{"targetRefs": refs(ref("TCPRoute", "db")), "cors": obj{}, "authorization": obj{}}),
			[]string{"spec.cors: Forbidden: only authorization applies to a TCPRoute (route shop/db)"}},
		{"only clientCIDRs in a TCPRoute's authorization",
			nil,
			pol(t, SecurityPolicy, "shop", "db", 1, obj{"targetRefs": refs(ref("TCPRoute", "db")), "authorization": obj{"rules": list{obj{"action": "Allow", "principal": obj{"headers": list{obj{"name": "x"}}}}}}}),
			[]string{"spec.authorization.rules[0].principal.headers: Forbidden: only clientCIDRs apply to a TCPRoute (route shop/db)"}},
		{"a gateway policy with cors and basicAuth above a TCPRoute is accepted (only its authorization applies there)",
			nil,
			pol(t, SecurityPolicy, gwNS, "gw", 1, obj{"targetRefs": refs(ref("Gateway", "eg")), "cors": obj{}, "basicAuth": obj{"users": obj{"name": "u"}}, "authorization": obj{}}),
			nil},
		{"a route policy merged with a gateway basicAuth on a TCPRoute is refused",
			[]*Policy{pol(t, SecurityPolicy, gwNS, "gw", 1, obj{"targetRefs": refs(ref("Gateway", "eg")), "basicAuth": obj{"users": obj{"name": "u"}}})},
			pol(t, SecurityPolicy, "shop", "db", 2, obj{"targetRefs": refs(ref("TCPRoute", "db")), "mergeType": "StrategicMerge", "authorization": obj{}}),
			[]string{"spec.basicAuth: Forbidden: only authorization applies to a TCPRoute (route shop/db)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs := CheckProjection(snapshot(shop(), c.world...).Project(Write{New: c.write}))
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// envoyproxy/gateway #9334: a cluster-wide default mergeType for route-targeted policies.
func TestDefaultMergeType(t *testing.T) {
	add := []jsonpatch.Operation{jsonpatch.NewOperation("add", "/spec/mergeType", "StrategicMerge")}
	for _, c := range []struct {
		name string
		kind string
		spec obj
		def  MergeType
		want []jsonpatch.Operation
	}{
		{"route target gets the default", SecurityPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart"))}, StrategicMerge, add},
		{"rule target gets the default", BackendTrafficPolicy, obj{"targetRefs": refs(sref("GRPCRoute", "cart", "a"))}, StrategicMerge, add},
		{"route selector gets the default", EnvoyExtensionPolicy, obj{"targetSelectors": list{obj{"kind": "HTTPRoute"}}}, StrategicMerge, add},
		{"setting off", SecurityPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart"))}, "", nil},
		{"an explicit mergeType stays", SecurityPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "JSONMerge"}, StrategicMerge, nil},
		{"a gateway target gets none", SecurityPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart"), ref("Gateway", "eg"))}, StrategicMerge, nil},
		{"client traffic policy gets none", ClientTrafficPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart"))}, StrategicMerge, nil},
		{"Replace is no default", SecurityPolicy, obj{"targetRefs": refs(ref("HTTPRoute", "cart"))}, Replace, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, DefaultMergeType(pol(t, c.kind, "shop", "p", 0, c.spec), c.def)); d != "" {
				t.Errorf("patch (-want +got):\n%s", d)
			}
		})
	}
}

// targetRef wins over targetRefs (api/v1alpha1/policy_helpers.go GetTargetRefs); targetSelectors
// default to the Gateway API group and the policy's namespace.
func TestRead(t *testing.T) {
	p := pol(t, SecurityPolicy, "shop", "p", 0, obj{
		"targetRef":       ref("HTTPRoute", "cart"),
		"targetRefs":      refs(ref("HTTPRoute", "shelf")),
		"targetSelectors": list{obj{"kind": "HTTPRoute", "matchLabels": obj{"a": "b"}}},
		"mergeType":       "JSONMerge",
		"cors":            obj{},
	})
	want := &Policy{Kind: SecurityPolicy, Ref: Ref{"shop", "p"}, Created: t0,
		Targets:   []TargetRef{{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "cart"}},
		Selectors: []Selector{{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", From: "Same"}},
		MergeType: JSONMerge, Fields: obj{"cors": obj{}}}
	want.Selectors[0].Labels.MatchLabels = map[string]string{"a": "b"}
	opts := cmp.Options{cmp.AllowUnexported(Policy{}), cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Raw" || p.Last().String() == ".sources"
	}, cmp.Ignore())}
	if d := cmp.Diff(want, p, opts); d != "" {
		t.Errorf("policy (-want +got):\n%s", d)
	}
	bad := &unstructured.Unstructured{Object: obj{"apiVersion": Group + "/" + Version, "kind": SecurityPolicy,
		"metadata": obj{"namespace": "shop", "name": "p"}, "spec": obj{"targetRefs": "cart", "mergeType": int64(1)}}}
	_, errs := Read(bad)
	wantErrs := field.ErrorList{
		field.Invalid(field.NewPath("spec", "mergeType"), int64(1), "must be a string"),
		field.Invalid(field.NewPath("spec", "targetRefs"), "cart", "must be a list"),
	}
	if d := cmp.Diff(wantErrs, errs); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}
