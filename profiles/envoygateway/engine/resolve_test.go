package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Envoy Gateway translates policies on route rules, then routes, then ListenerSet listeners,
// ListenerSets, Gateway listeners and Gateways, and a broader policy skips a route that a narrower
// one filled (internal/gatewayapi/securitypolicy.go ProcessSecurityPolicies steps 1-6;
// translateSecurityPolicyForRoute `if r.Security != nil { continue }`).
func TestLadderMostSpecificPolicyWins(t *testing.T) {
	gw := pol(t, SecurityPolicy, gwNS, "gw", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "jwt": obj{"providers": list{obj{"name": "a"}}}})
	listener := pol(t, SecurityPolicy, gwNS, "listener", 0, obj{"targetRefs": refs(sref("Gateway", "eg", "http")), "cors": obj{}})
	route := pol(t, SecurityPolicy, "shop", "route", 0, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "extAuth": obj{}})
	rule := pol(t, SecurityPolicy, "shop", "rule", 0, obj{"targetRefs": refs(sref("HTTPRoute", "cart", "admin")), "basicAuth": obj{}})
	for _, c := range []struct {
		name     string
		policies []*Policy
		rule     string
		want     map[string]string
	}{
		{"gateway policy alone reaches the rule", []*Policy{gw}, "main", map[string]string{"jwt": gwNS + "/gw"}},
		{"listener policy beats gateway policy", []*Policy{gw, listener}, "main", map[string]string{"cors": gwNS + "/listener"}},
		{"route policy beats listener policy", []*Policy{gw, listener, route}, "main", map[string]string{"extAuth": "shop/route"}},
		{"rule policy beats route policy on its rule", []*Policy{gw, listener, route, rule}, "admin", map[string]string{"basicAuth": "shop/rule"}},
		{"rule policy leaves the other rule to the route policy", []*Policy{gw, listener, route, rule}, "main", map[string]string{"extAuth": "shop/route"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := at(t, snapshot(shop(), c.policies...), SecurityPolicy, "shop/cart", c.rule, "http")
			if d := cmp.Diff(c.want, got.Sources); d != "" {
				t.Errorf("sources (-want +got):\n%s", d)
			}
		})
	}
}

// Without mergeType the most specific policy replaces the whole policy: the route's extAuth-only
// policy drops the Gateway's jwt (envoyproxy/gateway #8781; securitypolicy.go
// processSecurityPolicyForRoute, `policy.Spec.MergeType == nil` branch).
func TestReplacementWithoutMergeTypeDropsGatewayFields(t *testing.T) {
	gw := pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "jwt": obj{"providers": list{obj{"name": "a"}}}, "cors": obj{}})
	route := pol(t, SecurityPolicy, "shop", "cart-auth", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "extAuth": obj{"http": obj{}}})
	s := snapshot(shop(), gw)
	pr := s.Project(Write{New: route})
	want := []string{"PRC-W020 drops `cors`, `jwt` from envoy-gateway-system/gw-auth on route shop/cart; set `mergeType: StrategicMerge` to keep it"}
	if d := cmp.Diff(want, pr.Warnings()); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	got := at(t, snapshot(shop(), gw, route), SecurityPolicy, "shop/cart", "main", "http")
	if d := cmp.Diff(map[string]string{"extAuth": "shop/cart-auth"}, got.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
}

// StrategicMerge merges the route policy into the Gateway policy with the API structs' patch keys
// (internal/utils/merge.go mergeInternal, strategicpatch.StrategicMergePatch): objects merge field
// by field, extAuth.contextExtensions merge by name, other lists (authorization.rules,
// envoyproxy/gateway #9053) are replaced whole.
func TestStrategicMergeKeepsParentFieldsAndMergesPatchKeyLists(t *testing.T) {
	gw := pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")),
		"jwt":           obj{"providers": list{obj{"name": "a"}}},
		"extAuth":       obj{"failOpen": false, "contextExtensions": list{obj{"name": "tier", "value": "gold"}, obj{"name": "zone", "value": "eu"}}},
		"authorization": obj{"defaultAction": "Deny", "rules": list{obj{"action": "Allow", "name": "ops"}}}})
	route := pol(t, SecurityPolicy, "shop", "cart-auth", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge",
		"extAuth":       obj{"contextExtensions": list{obj{"name": "tier", "value": "silver"}, obj{"name": "app", "value": "cart"}}},
		"authorization": obj{"rules": list{obj{"action": "Allow", "name": "cart"}}}})
	got := at(t, snapshot(shop(), gw, route), SecurityPolicy, "shop/cart", "main", "http")
	wantSpec := obj{
		"jwt":           obj{"providers": list{obj{"name": "a"}}},
		"extAuth":       obj{"failOpen": false, "contextExtensions": list{obj{"name": "tier", "value": "silver"}, obj{"name": "zone", "value": "eu"}, obj{"name": "app", "value": "cart"}}},
		"authorization": obj{"defaultAction": "Deny", "rules": list{obj{"action": "Allow", "name": "cart"}}},
	}
	if d := cmp.Diff(wantSpec, got.Spec); d != "" {
		t.Errorf("spec (-want +got):\n%s", d)
	}
	wantSources := map[string]string{
		"jwt":              gwNS + "/gw-auth",
		"extAuth.failOpen": gwNS + "/gw-auth",
		"extAuth.contextExtensions[name=tier].name":  "shop/cart-auth",
		"extAuth.contextExtensions[name=tier].value": "shop/cart-auth",
		"extAuth.contextExtensions[name=zone]":       gwNS + "/gw-auth",
		"extAuth.contextExtensions[name=app]":        "shop/cart-auth",
		"authorization.defaultAction":                gwNS + "/gw-auth",
		"authorization.rules":                        "shop/cart-auth",
	}
	if d := cmp.Diff(wantSources, got.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	if w := (snapshot(shop(), gw).Project(Write{New: route})).Warnings(); len(w) != 0 {
		t.Errorf("a merge drops nothing, got warnings %q", w)
	}
}

// JSONMerge is RFC 7386 (internal/utils/merge.go mergeInternal, jsonpatch.MergePatch): null
// deletes, every list is replaced whole, patch keys do not apply.
func TestJSONMergeIsRFC7386(t *testing.T) {
	gw := pol(t, BackendTrafficPolicy, gwNS, "gw-traffic", 0, obj{"targetRefs": refs(ref("Gateway", "eg")),
		"retry":       obj{"numRetries": int64(3)},
		"timeout":     obj{"http": obj{"requestTimeout": "10s"}},
		"compression": list{obj{"type": "Gzip"}}})
	route := pol(t, BackendTrafficPolicy, "shop", "cart-traffic", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "JSONMerge",
		"retry":       nil,
		"timeout":     obj{"http": obj{"connectionIdleTimeout": "5s"}},
		"compression": list{obj{"type": "Brotli"}}})
	got := at(t, snapshot(shop(), gw, route), BackendTrafficPolicy, "shop/cart", "main", "http")
	wantSpec := obj{"timeout": obj{"http": obj{"requestTimeout": "10s", "connectionIdleTimeout": "5s"}}, "compression": list{obj{"type": "Brotli"}}}
	if d := cmp.Diff(wantSpec, got.Spec); d != "" {
		t.Errorf("spec (-want +got):\n%s", d)
	}
	// The same under StrategicMerge keeps both compressors: compression is a patch-key list
	// (api/v1alpha1/backendtrafficpolicy_types.go Compression patchMergeKey type).
	route.MergeType = StrategicMerge
	got = at(t, snapshot(shop(), gw, route), BackendTrafficPolicy, "shop/cart", "main", "http")
	if d := cmp.Diff(list{obj{"type": "Gzip"}, obj{"type": "Brotli"}}, got.Spec["compression"]); d != "" {
		t.Errorf("strategic compression (-want +got):\n%s", d)
	}
}

// Under StrategicMerge both levels' global rate-limit rules apply: the IR merges them again by
// generated rule names (backendtrafficpolicy.go translateBackendTrafficPolicyForRouteWithMerge).
func TestStrategicMergeKeepsRateLimitRulesOfBothLevels(t *testing.T) {
	gw := pol(t, BackendTrafficPolicy, gwNS, "gw-limits", 0, obj{"targetRefs": refs(ref("Gateway", "eg")),
		"rateLimit": obj{"type": "Global", "global": obj{"rules": list{obj{"limit": obj{"requests": int64(1000), "unit": "Minute"}}}}}})
	route := pol(t, BackendTrafficPolicy, "shop", "cart-limits", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge",
		"rateLimit": obj{"global": obj{"rules": list{obj{"limit": obj{"requests": int64(10), "unit": "Second"}}}}}})
	got := at(t, snapshot(shop(), gw, route), BackendTrafficPolicy, "shop/cart", "main", "http")
	want := map[string]string{"rateLimit.type": gwNS + "/gw-limits", "rateLimit.global.rules[0]": gwNS + "/gw-limits", "rateLimit.global.rules[1]": "shop/cart-limits"}
	if d := cmp.Diff(want, got.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	route.MergeType = JSONMerge
	got = at(t, snapshot(shop(), gw, route), BackendTrafficPolicy, "shop/cart", "main", "http")
	want = map[string]string{"rateLimit.type": gwNS + "/gw-limits", "rateLimit.global.rules": "shop/cart-limits"}
	if d := cmp.Diff(want, got.Sources); d != "" {
		t.Errorf("json merge sources (-want +got):\n%s", d)
	}
}

// A merge reaches the single closest parent (listener policy, else Gateway policy), and a rule-level
// merge skips the route-level policy (securitypolicy.go processSecurityPolicyForRoute: parentPolicy
// from gatewayPolicyMap[listenerKey] else gatewayPolicyMap[gwKey]; no chaining).
func TestMergeTypeMergesIntoOneParentWithoutChaining(t *testing.T) {
	gw := pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "jwt": obj{"providers": list{obj{"name": "a"}}}})
	listener := pol(t, SecurityPolicy, gwNS, "http-cors", 0, obj{"targetRefs": refs(sref("Gateway", "eg", "http")), "cors": obj{}})
	route := pol(t, SecurityPolicy, "shop", "cart-auth", 1, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "mergeType": "StrategicMerge", "extAuth": obj{}})
	rule := pol(t, SecurityPolicy, "shop", "admin-auth", 2, obj{"targetRefs": refs(sref("HTTPRoute", "cart", "admin")), "mergeType": "StrategicMerge", "basicAuth": obj{}})
	s := snapshot(shop(), gw, listener, route)
	got := at(t, s, SecurityPolicy, "shop/cart", "main", "http")
	if d := cmp.Diff(map[string]string{"cors": gwNS + "/http-cors", "extAuth": "shop/cart-auth"}, got.Sources); d != "" {
		t.Errorf("route merges into the listener policy only (-want +got):\n%s", d)
	}
	pr := s.Project(Write{New: rule})
	want := []string{"PRC-W022 StrategicMerge on HTTPRoute shop/cart#admin skips route-level shop/cart-auth: a merge reaches one parent only (envoy-gateway-system/http-cors)"}
	if d := cmp.Diff(want, pr.Warnings()); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	got = at(t, snapshot(shop(), gw, listener, route, rule), SecurityPolicy, "shop/cart", "admin", "http")
	if d := cmp.Diff(map[string]string{"cors": gwNS + "/http-cors", "basicAuth": "shop/admin-auth"}, got.Sources); d != "" {
		t.Errorf("rule merge skips the route policy (-want +got):\n%s", d)
	}
}

// Two policies of a kind on one scope: the oldest creationTimestamp holds it, then namespace/name
// (internal/gatewayapi/resource/resource.go Resources.Sort; securitypolicy.go
// resolveSecurityPolicyRouteTargetRef `route.attached` → Conflicted).
func TestConflictOldestThenNamespaceNameHoldsTheScope(t *testing.T) {
	for _, c := range []struct {
		name       string
		older, new *Policy
		want       string
		warnings   []string
	}{
		{"older policy holds",
			pol(t, SecurityPolicy, "shop", "zz-first", 0, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "cors": obj{}}),
			pol(t, SecurityPolicy, "shop", "aa-second", 5, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "jwt": obj{}}),
			"shop/zz-first",
			[]string{"PRC-W019 will be Conflicted on HTTPRoute shop/cart: shop/zz-first is older and holds it"}},
		{"same age: name decides",
			pol(t, SecurityPolicy, "shop", "bb", 0, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "cors": obj{}}),
			pol(t, SecurityPolicy, "shop", "aa", 0, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "jwt": obj{}}),
			"shop/aa", nil},
		{"a policy not stored yet is the newest",
			pol(t, SecurityPolicy, "shop", "bb", 60, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "cors": obj{}}),
			func() *Policy {
				p := pol(t, SecurityPolicy, "shop", "aa", 0, obj{"targetRefs": refs(ref("HTTPRoute", "cart")), "jwt": obj{}})
				p.Created = time.Time{}
				return p
			}(),
			"shop/bb",
			[]string{"PRC-W019 will be Conflicted on HTTPRoute shop/cart: shop/bb is older and holds it"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := snapshot(shop(), c.older)
			if d := cmp.Diff(c.warnings, s.Project(Write{New: c.new}).Warnings()); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
			got := at(t, snapshot(shop(), c.older, c.new), SecurityPolicy, "shop/cart", "main", "http")
			if got.Holder.Ref.String() != c.want {
				t.Errorf("holder %s, want %s", got.Holder.Ref, c.want)
			}
		})
	}
}

// A route attached through a ListenerSet climbs ListenerSet listener > ListenerSet > Gateway and
// skips the Gateway's listener policies, which are siblings (securitypolicy.go
// processSecurityPolicyForRoute, listener.isFromListenerSet branch).
func TestListenerSetLadder(t *testing.T) {
	gw := pol(t, SecurityPolicy, gwNS, "gw-auth", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "jwt": obj{}})
	gwl := pol(t, SecurityPolicy, gwNS, "http-cors", 0, obj{"targetRefs": refs(sref("Gateway", "eg", "http")), "cors": obj{}})
	ls := pol(t, SecurityPolicy, "shop", "team-auth", 0, obj{"targetRefs": refs(ref("ListenerSet", "team")), "basicAuth": obj{}})
	lsl := pol(t, SecurityPolicy, "shop", "team-http", 0, obj{"targetRefs": refs(sref("ListenerSet", "team", "team-http")), "apiKeyAuth": obj{}})
	route := pol(t, SecurityPolicy, "shop", "team-route", 1, obj{"targetRefs": refs(ref("HTTPRoute", "team-route")), "mergeType": "StrategicMerge", "extAuth": obj{}})
	for _, c := range []struct {
		name     string
		policies []*Policy
		want     map[string]string
	}{
		{"gateway listener policy is a sibling", []*Policy{gw, gwl}, map[string]string{"jwt": gwNS + "/gw-auth"}},
		{"listenerset beats gateway", []*Policy{gw, gwl, ls}, map[string]string{"basicAuth": "shop/team-auth"}},
		{"listenerset listener beats listenerset", []*Policy{gw, ls, lsl}, map[string]string{"apiKeyAuth": "shop/team-http"}},
		{"route merges into the listenerset policy", []*Policy{gw, ls, route}, map[string]string{"basicAuth": "shop/team-auth", "extAuth": "shop/team-route"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := at(t, snapshot(shop(), c.policies...), SecurityPolicy, "shop/team-route", "main", "team-http")
			if d := cmp.Diff(c.want, got.Sources); d != "" {
				t.Errorf("sources (-want +got):\n%s", d)
			}
		})
	}
}

// ClientTrafficPolicy claims listeners: section first, then ListenerSet-wide, then Gateway-wide
// (clienttrafficpolicy.go ProcessClientTrafficPolicies: sectionName pass, then passKind
// ListenerSet before Gateway).
func TestClientTrafficPolicySectionThenListenerSetThenGateway(t *testing.T) {
	gw := pol(t, ClientTrafficPolicy, gwNS, "gw-client", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "timeout": obj{}})
	https := pol(t, ClientTrafficPolicy, gwNS, "https-client", 0, obj{"targetRefs": refs(sref("Gateway", "eg", "https")), "tls": obj{}})
	ls := pol(t, ClientTrafficPolicy, "shop", "team-client", 0, obj{"targetRefs": refs(ref("ListenerSet", "team")), "headers": obj{}})
	s := snapshot(shop(), gw, https, ls)
	got := map[string]string{}
	for _, it := range s.Items(ClientTrafficPolicy) {
		for id, src := range it.Sources {
			got[it.Listener+" "+id] = src
		}
	}
	want := map[string]string{
		"http timeout": gwNS + "/gw-client",
		"https tls":    gwNS + "/https-client",
		"tcp timeout":  gwNS + "/gw-client",
		"ListenerSet shop/team#team-http headers": "shop/team-client",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("listener sources (-want +got):\n%s", d)
	}
}

// BackendTrafficPolicy on TCP and UDP routes fills single fields: each level sets only what a more
// specific one left unset (backendtrafficpolicy.go applyTrafficFeatureToRoute, setIfNil).
func TestBackendTrafficPolicyOnTCPRouteFillsFields(t *testing.T) {
	gw := pol(t, BackendTrafficPolicy, gwNS, "gw-traffic", 0, obj{"targetRefs": refs(ref("Gateway", "eg")), "timeout": obj{}, "loadBalancer": obj{}})
	route := pol(t, BackendTrafficPolicy, "shop", "db-traffic", 0, obj{"targetRefs": refs(ref("TCPRoute", "db")), "loadBalancer": obj{"type": "Random"}})
	got := at(t, snapshot(shop(), gw, route), BackendTrafficPolicy, "shop/db", "rule-0", "tcp")
	if d := cmp.Diff(map[string]string{"timeout": gwNS + "/gw-traffic", "loadBalancer": "shop/db-traffic"}, got.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
}
