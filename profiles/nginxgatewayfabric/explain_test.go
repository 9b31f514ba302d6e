package nginxgatewayfabric

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
)

// cafe reads the samples of config/samples/nginx-gateway-fabric with the PrecedentConfig of the
// config/nginx-gateway-fabric component, plus the YAML documents extra, as the CLI reads an offline
// input.
func cafe(t *testing.T, extra ...string) *profile.Offline {
	t.Helper()
	objs, err := manifest.Read(filepath.Join("..", "..", "config", "samples", "nginx-gateway-fabric"))
	if err != nil {
		t.Fatal(err)
	}
	var us []*unstructured.Unstructured
	for _, o := range objs {
		us = append(us, o.Unstructured)
	}
	for _, doc := range extra {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		us = append(us, u)
	}
	cfg, err := manifest.Read(filepath.Join("..", "..", "config", "nginx-gateway-fabric", "precedentconfig.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, errs := settings.Decode(cfg[0].Unstructured)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	reg := s.Registry()
	inv := inventory.Build(reg, us, nil)
	return &profile.Offline{Objects: us, Settings: s, Registry: reg, Inv: inv, Graph: topology.Build(inv.Topology)}
}

// kindOf is the configured kind named kind.
func kindOf(t *testing.T, in *profile.Offline, kind string) policy.Kind {
	t.Helper()
	for _, k := range in.Registry.Kinds() {
		if k.GVK.Kind == kind {
			return k
		}
	}
	t.Fatalf("no kind %s configured", kind)
	return policy.Kind{}
}

const (
	// newerGatewayCSP is a second, newer Gateway ClientSettingsPolicy setting body.maxSize:
	// markConflictedPolicies marks it Conflicted (clientsettings.Validator.Conflicts: body).
	newerGatewayCSP = `
apiVersion: gateway.nginx.org/v1alpha1
kind: ClientSettingsPolicy
metadata: {name: gateway-bigger-bodies, namespace: cafe, creationTimestamp: "2026-01-02T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gateway}
  body: {maxSize: 50m}`
	// coffeeShadow shares cafe.example.com:80/coffee with route coffee: checkTargetRoutesForOverlap
	// refuses coffee-client-settings, which does not target it.
	coffeeShadow = `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: coffee-shadow, namespace: cafe}
spec:
  parentRefs: [{name: gateway}]
  hostnames: [cafe.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /coffee}}]}]`
)

// TestExplainPolicy: explain --policy of NGINX Gateway Fabric's kinds gives the Accepted condition
// its graph builder writes (policies.go: processPolicies, checkTargetRoutesForOverlap,
// markConflictedPolicies) and each field's fate on the routes the policy reaches.
func TestExplainPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		extra      []string
		ref        policy.Ref
		want       *profile.PolicyExplanation
	}{
		{name: "a Gateway policy whose body.maxSize the coffee route's policy replaces there", kind: "ClientSettingsPolicy", ref: policy.Ref{Namespace: "cafe", Name: "gateway-client-settings"},
			want: &profile.PolicyExplanation{Kind: "ClientSettingsPolicy", Policy: "cafe/gateway-client-settings",
				Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "The Policy is accepted"},
				Enforced: profile.Condition{Status: "True", Reason: "PartiallyEnforced", Message: "1 of 3 fields replaced on some or all paths"},
				Rules: []profile.RuleFate{
					{ID: "body.maxSize", State: "partly", By: "cafe/coffee-client-settings", Paths: 2},
					{ID: "body.timeout", State: "in-effect", Paths: 2},
					{ID: "keepAlive.requests", State: "in-effect", Paths: 2},
				}}},
		{name: "a route policy in effect", kind: "ClientSettingsPolicy", ref: policy.Ref{Namespace: "cafe", Name: "coffee-client-settings"},
			want: &profile.PolicyExplanation{Kind: "ClientSettingsPolicy", Policy: "cafe/coffee-client-settings",
				Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "The Policy is accepted"},
				Enforced: profile.Condition{Status: "True", Reason: "Enforced", Message: "every field is in effect"},
				Rules:    []profile.RuleFate{{ID: "body.maxSize", State: "in-effect", Paths: 1}}}},
		{name: "a newer Gateway policy setting the same field is Conflicted", kind: "ClientSettingsPolicy", extra: []string{newerGatewayCSP}, ref: policy.Ref{Namespace: "cafe", Name: "gateway-bigger-bodies"},
			want: &profile.PolicyExplanation{Kind: "ClientSettingsPolicy", Policy: "cafe/gateway-bigger-bodies",
				Accepted: profile.Condition{Status: "False", Reason: "Conflicted", Message: "Conflicts with another ClientSettingsPolicy: ClientSettingsPolicy cafe/gateway-client-settings, older, sets body.maxSize on the same target"},
				Enforced: profile.Condition{Status: "False", Reason: "Conflicted", Message: "the policy is not accepted: NGINX Gateway Fabric applies none of it"},
				Rules:    []profile.RuleFate{{ID: "body.maxSize", State: "replaced", By: "cafe/coffee-client-settings", Paths: 2}}}},
		{name: "a route policy whose route shares hostname:port/path with another", kind: "ClientSettingsPolicy", extra: []string{coffeeShadow}, ref: policy.Ref{Namespace: "cafe", Name: "coffee-client-settings"},
			want: &profile.PolicyExplanation{Kind: "ClientSettingsPolicy", Policy: "cafe/coffee-client-settings",
				Accepted: profile.Condition{Status: "False", Reason: "TargetConflict", Message: `Policy cannot be applied to target "cafe/coffee" since another Route "cafe/coffee-shadow" shares a namespace/gateway-name:hostname:port/path combination with this target (cafe/gateway:cafe.example.com:80/coffee)`},
				Enforced: profile.Condition{Status: "False", Reason: "TargetConflict", Message: "the policy is not accepted: NGINX Gateway Fabric applies none of it"},
				Rules:    []profile.RuleFate{{ID: "body.maxSize", State: "replaced", By: "cafe/gateway-client-settings", Paths: 1}}}},
		{name: "upstream settings on two Services", kind: "UpstreamSettingsPolicy", ref: policy.Ref{Namespace: "cafe", Name: "keepalive"},
			want: &profile.PolicyExplanation{Kind: "UpstreamSettingsPolicy", Policy: "cafe/keepalive",
				Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "The Policy is accepted"},
				Enforced: profile.Condition{Status: "True", Reason: "Enforced", Message: "every field is in effect"},
				Rules:    []profile.RuleFate{{ID: "keepAlive.connections", State: "in-effect", Paths: 2}}}},
		{name: "tracing on a route", kind: "ObservabilityPolicy", ref: policy.Ref{Namespace: "cafe", Name: "tea-tracing"},
			want: &profile.PolicyExplanation{Kind: "ObservabilityPolicy", Policy: "cafe/tea-tracing",
				Accepted: profile.Condition{Status: "True", Reason: "Accepted", Message: "The Policy is accepted"},
				Enforced: profile.Condition{Status: "True", Reason: "Enforced", Message: "every field is in effect"},
				Rules:    []profile.RuleFate{{ID: "tracing", State: "in-effect", Paths: 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := cafe(t, tc.extra...)
			got, err := Profile{}.ExplainPolicy(in, kindOf(t, in, tc.kind), tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("explanation (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplainRule: explain --target T --rule ID walks the policies of each route beneath T that
// set the field: the Gateway's first (replaced where the route's sets it: NGINX inherits a directive
// from server to location unless the location sets it, clientsettings.Generator), then the route's.
func TestExplainRule(t *testing.T) {
	gw := policy.Ref{Namespace: "cafe", Name: "gateway-client-settings"}
	coffee := policy.Ref{Namespace: "cafe", Name: "coffee-client-settings"}
	newer := policy.Ref{Namespace: "cafe", Name: "gateway-bigger-bodies"}
	replacedBy := func(p, by policy.Ref, level, detail string) effective.Step {
		return effective.Step{Level: level, Policy: p, Action: effective.Replaced, Other: &by, Detail: detail}
	}
	inherit := "the route's value holds: NGINX inherits a setting from the server to a location only where the location does not set it"
	conflicted := "Conflicts with another ClientSettingsPolicy: ClientSettingsPolicy cafe/gateway-client-settings, older, sets body.maxSize on the same target"
	for _, tc := range []struct {
		name   string
		extra  []string
		target topology.Target
		rule   string
		want   []effective.Explanation
	}{
		{name: "the coffee route's body.maxSize replaces the Gateway's", target: topology.Target{Kind: "HTTPRoute", Namespace: "cafe", Name: "coffee"}, rule: "body.maxSize",
			want: []effective.Explanation{{Path: effective.ItemKey{Gateway: "cafe/gateway", Route: "cafe/coffee"}, Rule: "body.maxSize", From: &coffee, Steps: []effective.Step{
				replacedBy(gw, coffee, "gateway", inherit),
				{Level: "route", Policy: coffee, Action: effective.Added},
			}}}},
		{name: "beneath the Gateway, a Conflicted policy is replaced by the older", extra: []string{newerGatewayCSP}, target: topology.Target{Kind: "Gateway", Namespace: "cafe", Name: "gateway"}, rule: "body",
			want: []effective.Explanation{
				{Path: effective.ItemKey{Gateway: "cafe/gateway", Route: "cafe/coffee"}, Rule: "body", From: &coffee, Steps: []effective.Step{
					{Level: "gateway", Policy: gw, Action: effective.Added},
					replacedBy(newer, gw, "gateway", conflicted),
					{Level: "route", Policy: coffee, Action: effective.Added},
				}},
				{Path: effective.ItemKey{Gateway: "cafe/gateway", Route: "cafe/tea"}, Rule: "body", From: &gw, Steps: []effective.Step{
					{Level: "gateway", Policy: gw, Action: effective.Added},
					replacedBy(newer, gw, "gateway", conflicted),
				}},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := cafe(t, tc.extra...)
			got, err := Profile{}.ExplainRule(in, kindOf(t, in, "ClientSettingsPolicy"), tc.target, tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("explanations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReach: explain --reach lists the routes whose effective settings hold the field, once per
// policy it comes from; an UpstreamSettingsPolicy's field is named with or without its Service; a
// field no policy sets is an error.
func TestReach(t *testing.T) {
	ref := func(name string) policy.Ref { return policy.Ref{Namespace: "cafe", Name: name} }
	path := func(route string) effective.ItemKey {
		return effective.ItemKey{Gateway: "cafe/gateway", Route: "cafe/" + route}
	}
	for _, tc := range []struct {
		name, kind, rule string
		policy           *policy.Ref
		want             []effective.ReachedPath
		err              string
	}{
		{name: "body from two policies on coffee", kind: "ClientSettingsPolicy", rule: "body",
			want: []effective.ReachedPath{{Path: path("coffee"), From: ref("coffee-client-settings")}, {Path: path("coffee"), From: ref("gateway-client-settings")}, {Path: path("tea"), From: ref("gateway-client-settings")}}},
		{name: "only where the given policy's value holds", kind: "ClientSettingsPolicy", rule: "body.maxSize", policy: &policy.Ref{Namespace: "cafe", Name: "gateway-client-settings"},
			want: []effective.ReachedPath{{Path: path("tea"), From: ref("gateway-client-settings")}}},
		{name: "an upstream field on every Service", kind: "UpstreamSettingsPolicy", rule: "zoneSize",
			want: []effective.ReachedPath{{Path: path("coffee"), From: ref("coffee-zone")}}},
		{name: "an upstream field of one Service", kind: "UpstreamSettingsPolicy", rule: "tea.keepAlive",
			want: []effective.ReachedPath{{Path: path("tea"), From: ref("keepalive")}}},
		{name: "a field no policy sets", kind: "ObservabilityPolicy", rule: "metrics", err: `no ObservabilityPolicy.gateway.nginx.org declares rule "metrics"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := cafe(t)
			got, err := Profile{}.Reach(in, kindOf(t, in, tc.kind), tc.rule, tc.policy)
			if tc.err != "" || err != nil {
				if err == nil || !strings.Contains(err.Error(), tc.err) || tc.err == "" {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}
