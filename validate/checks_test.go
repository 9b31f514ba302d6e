package validate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/validate"
)

// world loads testdata/topology.yaml and returns the AuthPolicy snapshot.
func world(t testing.TB, kind string, extra ...string) *effective.Snapshot {
	t.Helper()
	objs, err := manifest.Read("testdata/topology.yaml")
	if err != nil {
		t.Fatal(err)
	}
	us := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		us = append(us, o.Unstructured)
	}
	for _, y := range extra {
		us = append(us, obj(t, y))
	}
	reg := policy.NewRegistry(policy.Builtin()...)
	inv := inventory.Build(reg, us, nil)
	k, _ := reg.ByName(kind)
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	return effective.NewSnapshot(k, topology.Build(inv.Topology), inv.Views(k), ev)
}

func obj(t testing.TB, y string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]interface{}
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetNamespace() == "" {
		u.SetNamespace("shop")
	}
	return u
}

func authPolicy(name, spec string) string {
	return "apiVersion: policy.precedent.dev/v1alpha1\nkind: AuthPolicy\nmetadata:\n  name: " + name +
		"\n  namespace: shop\n  creationTimestamp: \"2024-02-01T00:00:00Z\"\nspec:\n" + spec
}

const routeTarget = "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}\n"

func review(t *testing.T, s settings.Settings, snap *effective.Snapshot, y string) validate.Outcome {
	t.Helper()
	ev, _ := cel.New(s.CELCostLimit)
	o := obj(t, y)
	return validate.Review(snap.Without(policy.Ref{Namespace: o.GetNamespace(), Name: o.GetName()}), o, s, ev)
}

func errStrings(out validate.Outcome) []string {
	var s []string
	for _, e := range out.Errs {
		s = append(s, e.Error())
	}
	return s
}

// TestRejections has one row per rejection docs/checks.md lists, with the exact path and message.
func TestRejections(t *testing.T) {
	unsetOff := settings.Defaults()
	unsetOff.UnsetEnabled = false
	onePer := settings.Defaults()
	onePer.OnePolicyPerTarget = true
	tests := []struct {
		name     string
		settings *settings.Settings
		extra    []string
		policy   string
		want     []string
	}{
		{name: "target kind not allowed", policy: authPolicy("p", "  targetRef: {group: gateway.networking.k8s.io, kind: TLSRoute, name: cart}\n  rules: {authorization: {x: {}}}\n"),
			want: []string{`spec.targetRef.kind: Unsupported value: "TLSRoute": supported values: "Gateway", "HTTPRoute", "GRPCRoute"`}},
		{name: "target group not allowed", policy: authPolicy("p", "  targetRef: {group: apps, kind: Deployment, name: cart}\n  rules: {authorization: {x: {}}}\n"),
			want: []string{`spec.targetRef.group: Unsupported value: "apps": supported values: "gateway.networking.k8s.io"`}},
		{name: "namespace in a local target", policy: authPolicy("p", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart, namespace: other}\n  rules: {authorization: {x: {}}}\n"),
			want: []string{"spec.targetRef.namespace: Forbidden: a local target reference has no namespace: the target is in the policy's namespace"}},
		{name: "no target", policy: authPolicy("p", "  rules: {authorization: {x: {}}}\n"),
			want: []string{"spec.targetRef: Required value: a policy must target a Gateway, HTTPRoute or GRPCRoute"}},
		{name: "targetRefs of mixed kinds", policy: authPolicy("p", "  targetRefs:\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}\n  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  rules: {authorization: {x: {}}}\n"),
			want: []string{`spec.targetRefs[1].kind: Invalid value: "Gateway": all targetRefs must have the same kind (HTTPRoute)`}},
		{name: "duplicate targetRefs", policy: authPolicy("p", "  targetRefs:\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}\n  rules: {authorization: {x: {}}}\n"),
			want: []string{`spec.targetRefs[1]: Duplicate value: "HTTPRoute cart (same as spec.targetRefs[0])"`}},
		{name: "bare rules mixed with defaults", policy: authPolicy("p", routeTarget+"  rules: {authorization: {x: {}}}\n  defaults: {rules: {authorization: {y: {}}}}\n"),
			want: []string{"spec.rules: Forbidden: bare rules cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults"}},
		{name: "empty policy", policy: authPolicy("p", routeTarget),
			want: []string{"spec: Required value: a policy needs spec.rules, spec.defaults, spec.overrides or spec.unset"}},
		{name: "unknown strategy", policy: authPolicy("p", routeTarget+"  overrides: {strategy: replace, rules: {authorization: {y: {}}}}\n"),
			want: []string{`spec.overrides.strategy: Unsupported value: "replace": supported values: "atomic", "merge"`}},
		{name: "unknown rule section", policy: authPolicy("p", routeTarget+"  rules: {authz: {y: {}}}\n"),
			want: []string{`spec.rules.authz: Unsupported value: "authz": supported values: "authentication", "metadata", "authorization", "response", "callbacks"`}},
		{name: "when does not compile", policy: authPolicy("p", routeTarget+"  overrides: {when: 'self.rules >', rules: {authorization: {y: {}}}}\n"),
			want: []string{"spec.overrides.when: Invalid value: \"self.rules >\": compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.rules >\n | ............^"}},
		{name: "when is not boolean", policy: authPolicy("p", routeTarget+"  defaults: {when: '\"yes\"', rules: {authorization: {y: {}}}}\n"),
			want: []string{`spec.defaults.when: Invalid value: "\"yes\"": must evaluate to a boolean, not string`}},
		{name: "unset malformed id", policy: authPolicy("p", routeTarget+"  unset: [b]\n"),
			want: []string{`spec.unset[0]: Invalid value: "b": must be <section>.<name> with section one of authentication, authorization, callbacks, metadata, response`}},
		{name: "unset duplicate", policy: authPolicy("p", routeTarget+"  unset: [authentication.a, authentication.a]\n"),
			want: []string{`spec.unset[1]: Duplicate value: "authentication.a"`}},
		{name: "unset of own rule", policy: authPolicy("p", routeTarget+"  rules: {authentication: {a: {}}}\n  unset: [authentication.a]\n"),
			want: []string{"spec.unset[0]: Forbidden: rule authentication.a is declared by this policy: unset only removes rules inherited from other policies"}},
		{name: "unset switched off", settings: &unsetOff, policy: authPolicy("p", routeTarget+"  unset: [authentication.a]\n"),
			want: []string{"spec.unset: Forbidden: unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset"}},
		{name: "unset of a rule a higher policy overrides (F2)", policy: authPolicy("p", routeTarget+"  rules: {authorization: {c: {}}}\n  unset: [authorization.b]\n"),
			want: []string{"spec.unset[0]: Forbidden: rule authorization.b is set by the overrides of AuthPolicy gateway-system/gw-policy and cannot be unset: remove it from spec.unset"}},
		{name: "second policy on one target", settings: &onePer,
			extra:  []string{authPolicy("first", routeTarget+"  rules: {authorization: {x: {}}}\n")},
			policy: authPolicy("second", routeTarget+"  rules: {authorization: {y: {}}}\n"),
			want:   []string{"spec.targetRef: Forbidden: AuthPolicy shop/first already targets HTTPRoute shop/cart and one policy per target is configured: edit that policy instead"}},
		{name: "spec of the wrong type", policy: "apiVersion: policy.precedent.dev/v1alpha1\nkind: AuthPolicy\nmetadata: {name: p}\nspec: [1, 2]\n",
			want: []string{`spec: Invalid value: "list": must be an object`}},
		{name: "rules of the wrong type", policy: authPolicy("p", routeTarget+"  rules: 7\n"),
			want: []string{`spec.rules: Invalid value: "number": must be a map of named rules`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings.Defaults()
			if tt.settings != nil {
				s = *tt.settings
			}
			out := review(t, s, world(t, "AuthPolicy", tt.extra...), tt.policy)
			if diff := cmp.Diff(tt.want, errStrings(out)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

const gwLimits = "apiVersion: policy.precedent.dev/v1alpha1\nkind: RateLimitPolicy\nmetadata: {name: gw-limits, namespace: gateway-system, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n" +
	"  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n" +
	"  overrides: {strategy: merge, when: 'has(self.limits.x) && self.limits.x.rates[0].limit > 100', limits: {x: {rates: [{limit: 100, window: 1m}]}}}\n"

// TestWarnings has one row per warning docs/checks.md lists.
func TestWarnings(t *testing.T) {
	tests := []struct {
		name   string
		kind   string
		extra  []string
		policy string
		want   []string
	}{
		{name: "target not found", policy: authPolicy("p", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: nope}\n  rules: {authorization: {x: {}}}\n"),
			want: []string{"PRC-W011 spec.targetRef: target HTTPRoute shop/nope not found: the policy has no effect until it exists"}},
		{name: "route attached to no gateway", policy: authPolicy("p", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: orphan}\n  rules: {authorization: {x: {}}}\n"),
			want: []string{"PRC-W009 spec.targetRef: HTTPRoute shop/orphan is attached to no Gateway listener: the policy has no effect until it is"}},
		{name: "rule overridden by a gateway policy in another namespace", policy: authPolicy("p", routeTarget+"  rules: {authorization: {b: {}, c: {}}}\n"),
			want: []string{"PRC-W002 rule authorization.b on route shop/cart is overridden by AuthPolicy gateway-system/gw-policy"}},
		{name: "unset that removes nothing", policy: authPolicy("p", routeTarget+"  rules: {authorization: {c: {}}}\n  unset: [metadata.m]\n"),
			want: []string{"PRC-W008 spec.unset[0]: unset of metadata.m removes nothing: no higher policy sets it as a default on the routes of this policy"}},
		{name: "gateway write summary, defaults replaced, override ineffective unset",
			extra:  []string{authPolicy("route-p", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: checkout}\n  rules: {authentication: {a: {}}}\n  unset: [response.r]\n")},
			policy: "apiVersion: policy.precedent.dev/v1alpha1\nkind: AuthPolicy\nmetadata: {name: gw-policy, namespace: gateway-system, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  defaults: {strategy: merge, rules: {authentication: {a: {x: 1}}}}\n  overrides: {strategy: merge, rules: {response: {r: {}}}}\n",
			want: []string{
				"PRC-N003 this write changes the effective AuthPolicy of 2 routes",
				"PRC-N001 default rule authentication.a is replaced by AuthPolicy shop/route-p on route shop/checkout",
				"PRC-W005 the override of response.r makes the unset in AuthPolicy shop/route-p ineffective on route shop/checkout",
			}},
		{name: "one line per rule: the lower policies and their routes are listed with it",
			extra: []string{
				authPolicy("route-p", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: checkout}\n  rules: {authentication: {a: {}}}\n"),
				authPolicy("route-q", routeTarget+"  rules: {authentication: {a: {}}}\n"),
			},
			policy: "apiVersion: policy.precedent.dev/v1alpha1\nkind: AuthPolicy\nmetadata: {name: gw-policy, namespace: gateway-system, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  defaults: {strategy: merge, rules: {authentication: {a: {x: 1}}}}\n",
			want: []string{ // no summary: the lower policies keep both routes as they were
				"PRC-N001 default rule authentication.a is replaced by AuthPolicy shop/route-q and shop/route-p on 2 routes (shop/cart, shop/checkout)",
			}},
		{name: "constraint clips a lower value", kind: "RateLimitPolicy",
			extra:  []string{gwLimits},
			policy: "apiVersion: policy.precedent.dev/v1alpha1\nkind: RateLimitPolicy\nmetadata: {name: p, namespace: shop}\nspec:\n" + routeTarget + "  limits: {x: {rates: [{limit: 150, window: 1m}]}}\n",
			want:   []string{"PRC-W004 rule x on route shop/cart is clipped by the constraint of RateLimitPolicy gateway-system/gw-limits"}},
		{name: "constraint write reports what it clips", kind: "RateLimitPolicy",
			extra:  []string{"apiVersion: policy.precedent.dev/v1alpha1\nkind: RateLimitPolicy\nmetadata: {name: p, namespace: shop}\nspec:\n" + routeTarget + "  limits: {x: {rates: [{limit: 150, window: 1m}]}}\n"},
			policy: gwLimits,
			want: []string{
				"PRC-N003 this write changes the effective RateLimitPolicy of 1 route",
				"PRC-W003 the constraint in spec.overrides clips rule x of RateLimitPolicy shop/p on route shop/cart",
			}},
		{name: "rule ids with per cent signs are printed as written", kind: "RateLimitPolicy",
			extra: []string{"apiVersion: policy.precedent.dev/v1alpha1\nkind: RateLimitPolicy\nmetadata: {name: gw-limits, namespace: gateway-system, creationTimestamp: '2024-01-01T00:00:00Z'}\nspec:\n" +
				"  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  overrides: {strategy: merge, limits: {'100%s': {rates: [{limit: 1, window: 1m}]}}}\n"},
			policy: "apiVersion: policy.precedent.dev/v1alpha1\nkind: RateLimitPolicy\nmetadata: {name: p, namespace: shop}\nspec:\n" + routeTarget + "  limits: {'100%s': {rates: [{limit: 5, window: 1m}]}}\n",
			want:   []string{"PRC-W002 rule 100%s on route shop/cart is overridden by RateLimitPolicy gateway-system/gw-limits"}},
		{name: "when that fails at run time is reported", kind: "RateLimitPolicy",
			policy: "apiVersion: policy.precedent.dev/v1alpha1\nkind: RateLimitPolicy\nmetadata: {name: p, namespace: shop}\nspec:\n" + routeTarget + "  defaults: {when: 'self.limits.y.rates[0].limit > 1', limits: {x: {rates: [{limit: 1, window: 1m}]}}}\n",
			want:   []string{"PRC-W007 spec.defaults.when does not apply on route shop/cart: evaluating \"self.limits.y.rates[0].limit > 1\": no such key: y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind := tt.kind
			if kind == "" {
				kind = "AuthPolicy"
			}
			out := review(t, settings.Defaults(), world(t, kind, tt.extra...), tt.policy)
			if len(out.Errs) > 0 {
				t.Fatalf("unexpected errors: %v", out.Errs)
			}
			if diff := cmp.Diff(tt.want, out.Warnings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
