package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// gwRef and cartRef are target references of the topology's Gateway and cart route.
const (
	gwRef   = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
	cartRef = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}"
)

// kindPolicy is a policy document of kind, created minute minutes after the tests' base time, with
// spec.
func kindPolicy(kind, name, minute, spec string) string {
	return sprintf(`
apiVersion: gateway.nginx.org/v1alpha1
kind: %s
metadata: {name: %s, namespace: shop, annotations: {test/minute: "%s"}}
spec: %s`, kind, name, minute, spec)
}

// sourcesOn are the sources of kind's effective settings on route shop/<route>.
func sourcesOn(w *World, kind, route string) map[string]string {
	for _, it := range w.Items(kind, w.Decide()) {
		if it.Route == "shop/"+route {
			return it.Sources
		}
	}
	return nil
}

// TestListsNeverConflict: RateLimitPolicy's local rules and SnippetsPolicy's snippets never
// conflict; the policies of one level apply together, and a route's rules replace the Gateway's
// (NGINX inherits limit_req into a location only when it has none).
func TestListsNeverConflict(t *testing.T) {
	rule := func(rate string) string { return "{rate: " + rate + ", key: $binary_remote_addr}" }
	w := ngfWorld(t, topo,
		kindPolicy(RateLimitPolicy, "gw-a", "1", "{targetRefs: ["+gwRef+"], rateLimit: {rejectCode: 429, local: {rules: ["+rule("10r/s")+"]}}}"),
		kindPolicy(RateLimitPolicy, "gw-b", "2", "{targetRefs: ["+gwRef+"], rateLimit: {local: {rules: ["+rule("20r/s")+"]}}}"),
		kindPolicy(RateLimitPolicy, "cart", "3", "{targetRefs: ["+cartRef+"], rateLimit: {local: {rules: ["+rule("1r/s")+"]}}}"),
		kindPolicy(SnippetsPolicy, "s1", "1", "{targetRefs: ["+gwRef+"], snippets: [{context: http, value: 'aio on;'}]}"),
		kindPolicy(SnippetsPolicy, "s2", "2", "{targetRefs: ["+gwRef+"], snippets: [{context: http.server, value: 'sendfile on;'}]}"),
	)
	for _, p := range w.Policies {
		if st := StatusOf(w.Decide(), p); !st.Accepted() {
			t.Errorf("%s %s: %s, want Accepted", p.Kind, p.Ref, st.Reason)
		}
	}
	want := map[string]map[string]string{
		"tea":  {"rateLimit.local.rules": "shop/gw-a, shop/gw-b", "rateLimit.rejectCode": "shop/gw-a"},
		"cart": {"rateLimit.local.rules": "shop/cart", "rateLimit.rejectCode": "shop/gw-a"},
	}
	for route, sources := range want {
		if d := cmp.Diff(sources, sourcesOn(w, RateLimitPolicy, route)); d != "" {
			t.Errorf("RateLimitPolicy on %s (-want +got):\n%s", route, d)
		}
	}
	if d := cmp.Diff(map[string]string{"snippets": "shop/s1, shop/s2"}, sourcesOn(w, SnippetsPolicy, "cart")); d != "" {
		t.Errorf("SnippetsPolicy on cart (-want +got):\n%s", d)
	}
	for _, it := range w.Items(RateLimitPolicy, w.Decide()) {
		rules, _, _ := unstructured.NestedSlice(it.Spec, "rateLimit", "local", "rules")
		if want := map[string]int{"shop/cart": 1, "shop/tea": 2}[it.Route]; len(rules) != want {
			t.Errorf("RateLimitPolicy on %s holds %d rules, want %d", it.Route, len(rules), want)
		}
	}
}

// TestProxySettingsInherited: a route's ProxySettingsPolicy replaces the Gateway's field by field,
// and the Gateway policy's write is told so.
func TestProxySettingsInherited(t *testing.T) {
	gwPSP := kindPolicy(ProxySettingsPolicy, "gw-psp", "1", "{targetRefs: ["+gwRef+"], timeout: {read: 60s, connect: 5s}}")
	w := ngfWorld(t, topo, gwPSP,
		kindPolicy(ProxySettingsPolicy, "cart-psp", "2", "{targetRefs: ["+cartRef+"], timeout: {read: 10s}}"))
	if d := cmp.Diff(map[string]string{"timeout.read": "shop/cart-psp", "timeout.connect": "shop/gw-psp"}, sourcesOn(w, ProxySettingsPolicy, "cart")); d != "" {
		t.Errorf("cart (-want +got):\n%s", d)
	}
	pr := w.Project(Write{New: policy(t, gwPSP)})
	if len(pr.Warnings) != 1 || !strings.Contains(pr.Warnings[0], "PRC-W263 timeout.read is overridden on route shop/cart by ProxySettingsPolicy shop/cart-psp") {
		t.Errorf("warnings %q, want one PRC-W263 naming timeout.read on shop/cart", pr.Warnings)
	}
}

// TestOnePerTarget: a second PayloadProcessor or ExternalLoadBalancer on a target is Conflicted
// whatever it sets, and its write is told which one holds the target; an ExternalLoadBalancer on a
// Gateway outside the graph is Invalid, with NGINX Gateway Fabric's message.
func TestOnePerTarget(t *testing.T) {
	pp := func(name, minute string) string {
		return kindPolicy(PayloadProcessor, name, minute, "{targetRef: "+cartRef+", processors: [{type: ExtProcess, extProcess: {backendRef: {name: guard, port: 9000}}}]}")
	}
	elb := func(name, minute, gw string) string {
		return kindPolicy(ExternalLoadBalancer, name, minute, "{targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: "+gw+"}], gatewayLink: {ipamLabel: prod}}")
	}
	w := ngfWorld(t, topo, pp("first", "1"), elb("front", "1", "gw"), elb("nowhere", "1", "missing"))
	cases := []struct{ doc, want string }{
		{pp("second", "2"), "PRC-W260 PayloadProcessor shop/first, older, already holds it (one PayloadProcessor per target) on the same target"},
		{elb("back", "2", "gw"), "PRC-W260 ExternalLoadBalancer shop/front, older, already holds it (one ExternalLoadBalancer per target) on the same target"},
		{elb("nowhere", "1", "missing"), "PRC-W262 targetRef references a Gateway that does not exist"},
	}
	for _, c := range cases {
		p := policy(t, c.doc)
		pr := w.Project(Write{New: p})
		if len(pr.Errs) > 0 || len(pr.Warnings) != 1 || !strings.Contains(pr.Warnings[0], c.want) {
			t.Errorf("%s: errors %v, warnings %q, want one warning containing %q", p.Ref, pr.Errs, pr.Warnings, c.want)
		}
	}
	st := w.with(Write{New: policy(t, elb("back", "2", "gw"))}).Decide()
	if got := st[key{ExternalLoadBalancer, Ref{"shop", "back"}}]; got.Reason != ReasonConflicted || got.Message != `Gateway "shop/gw" is already fronted by ExternalLoadBalancer "front"` {
		t.Errorf("back: %s %q", got.Reason, got.Message)
	}
	if got := w.Decide()[key{ExternalLoadBalancer, Ref{"shop", "nowhere"}}]; got.Reason != ReasonInvalid {
		t.Errorf("nowhere: %s, want Invalid", got.Reason)
	}
}

// TestReadTargetRules: the CRD rules on the six kinds' targets, as field errors.
func TestReadTargetRules(t *testing.T) {
	cases := []struct{ doc, want string }{
		{kindPolicy(ProxySettingsPolicy, "mixed", "1", "{targetRefs: ["+gwRef+", "+cartRef+"], timeout: {read: 1s}}"),
			`spec.targetRefs: Invalid value: "Gateway, HTTPRoute": Cannot mix Gateway kind with HTTPRoute or GRPCRoute kinds in targetRefs`},
		{kindPolicy(RateLimitPolicy, "mixed", "1", "{targetRefs: ["+gwRef+", "+cartRef+"]}"),
			"Cannot mix Gateway kind with HTTPRoute or GRPCRoute kinds in targetRefs"},
		{kindPolicy(WAFPolicy, "mixed", "1", "{targetRefs: ["+cartRef+", {group: gateway.networking.k8s.io, kind: GRPCRoute, name: orders}], type: PLM}"),
			`spec.targetRefs: Invalid value: "GRPCRoute, HTTPRoute": All TargetRefs must be the same Kind`},
		{kindPolicy(SnippetsPolicy, "route", "1", "{targetRefs: ["+cartRef+"]}"),
			`spec.targetRefs[0].kind: Unsupported value: "HTTPRoute": supported values: "Gateway"`},
		{kindPolicy(ExternalLoadBalancer, "two", "1", "{targetRefs: ["+gwRef+", {group: gateway.networking.k8s.io, kind: Gateway, name: gw2}], gatewayLink: {ipamLabel: x}}"),
			"spec.targetRefs: Too many: 2: must have at most 1 item"},
		{kindPolicy(ExternalLoadBalancer, "common", "1", "{targetRefs: ["+gwRef+"], gatewayLink: {ipamLabel: x, additionalIngressLinkSpec: {partition: Common}}}"),
			`spec.gatewayLink.additionalIngressLinkSpec.partition: Invalid value: "Common": additionalIngressLinkSpec.partition cannot be Common`},
		{kindPolicy(PayloadProcessor, "grpc", "1", "{targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: orders}, processors: []}"),
			`spec.targetRef.kind: Unsupported value: "GRPCRoute": supported values: "Gateway", "HTTPRoute"`},
	}
	for _, c := range cases {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(c.doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		_, errs := Read(u)
		if got := errs.ToAggregate(); got == nil || !strings.Contains(got.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", u.GetKind(), u.GetName(), got, c.want)
		}
	}
}

// TestVersionLines: the same write, two versions, two answers. A ClientSettingsPolicy on a route
// whose hostnames another route on the same listener and path shares in another order (or in part)
// is a TargetConflict on main (#5605: one overlap key per hostname) and accepted on 2.6, whose key
// formats the whole list of accepted hostnames (v2.6.7 checkTargetRoutesForOverlap).
func TestVersionLines(t *testing.T) {
	route := func(name, hosts string) string {
		return sprintf(`
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %s, namespace: shop}
spec: {parentRefs: [{name: gw}], hostnames: [%s], rules: [{matches: [{path: {value: /coffee}}]}]}`, name, hosts)
	}
	csp := kindPolicy(ClientSettingsPolicy, "coffee-csp", "1", "{targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: coffee}, body: {maxSize: 1m}}")
	gw := `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec: {gatewayClassName: nginx, listeners: [{name: http, port: 80, protocol: HTTP}]}`
	cases := []struct {
		name, other string
		want        map[string]string // version -> reason
	}{
		{"the same hostnames in another order", "b.example.com, a.example.com", map[string]string{Version26: ReasonAccepted, VersionMain: ReasonTargetConflict}},
		{"one hostname of two", "b.example.com", map[string]string{Version26: ReasonAccepted, VersionMain: ReasonTargetConflict}},
		{"the same list", "a.example.com, b.example.com", map[string]string{Version26: ReasonTargetConflict, VersionMain: ReasonTargetConflict}},
		{"another hostname", "c.example.com", map[string]string{Version26: ReasonAccepted, VersionMain: ReasonAccepted}},
	}
	for _, c := range cases {
		for _, v := range Versions {
			w := ngfWorld(t, gw, route("coffee", "a.example.com, b.example.com"), route("other", c.other))
			w.Versions = map[string]string{ClientSettingsPolicy: v}
			w.Index()
			p := policy(t, csp)
			pr := w.Project(Write{New: p})
			got := ReasonAccepted
			if len(pr.Errs) > 0 {
				got = ReasonTargetConflict
			}
			if got != c.want[v] {
				t.Errorf("%s, NGINX Gateway Fabric %s: %s (errors %v), want %s", c.name, v, got, pr.Errs, c.want[v])
			}
		}
	}
}
