package kgateway

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

var trafficPolicy = policy.Kind{GVK: schema.GroupVersionKind{Group: engine.Group, Version: "v1alpha1", Kind: engine.TrafficPolicy}, Profile: Name}

// TestClaims: the configured TrafficPolicy kind, and HTTPRoute and Gateway writes (their annotation)
// only while the profile is in use.
func TestClaims(t *testing.T) {
	used, unused := policy.NewRegistry(trafficPolicy), policy.NewRegistry()
	cases := []struct {
		name string
		gk   schema.GroupKind
		reg  *policy.Registry
		want bool
	}{
		{"TrafficPolicy configured", trafficPolicy.GVK.GroupKind(), used, true},
		{"TrafficPolicy not configured", trafficPolicy.GVK.GroupKind(), unused, false},
		{"HTTPRoute in use", httpRouteKind, used, true},
		{"Gateway in use", gatewayKind, used, true},
		{"HTTPRoute not in use", httpRouteKind, unused, false},
		{"ListenerSet is read, not reviewed", listenerSetKind, used, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := (Profile{}).Claims(c.gk, c.reg); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestWebhooks: TrafficPolicy with its deletes, and HTTPRoute and Gateway writes (warnings only, so
// their entry fails open), only in use.
func TestWebhooks(t *testing.T) {
	cases := []struct {
		name  string
		kinds []policy.Kind
		want  []profile.Resource
	}{
		{"in use", []policy.Kind{trafficPolicy}, []profile.Resource{
			{Group: engine.Group, Version: "v1alpha1", Resource: "trafficpolicies", Deletes: true},
			{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes", WarnOnly: true},
			{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways", WarnOnly: true},
		}},
		{"not in use", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, (Profile{}).Webhooks(c.kinds).Validate); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func sample(t *testing.T) *profile.Offline {
	t.Helper()
	objs, err := manifest.Read(filepath.Join("..", "..", "config", "samples", "kgateway", "delegation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var us []*unstructured.Unstructured
	for _, o := range objs {
		us = append(us, o.Unstructured)
	}
	return &profile.Offline{Objects: us, Registry: policy.NewRegistry(trafficPolicy)}
}

// TestSample: config/samples/kgateway's delegation, as docs/profiles/kgateway.md shows it: the parent route
// preferring itself (OverridableShallowMerge in GetMergeStrategy) holds rateLimit on the child,
// the child keeps timeouts, the rule policy adds headerModifiers, and the label-delegated route
// inherits the parent's fields.
func TestSample(t *testing.T) {
	in := sample(t)
	items, err := (Profile{}).Effective(in, trafficPolicy, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]string{}
	for _, it := range items {
		got[it.Route+" "+it.Rule] = it.Sources
	}
	want := map[string]map[string]string{
		"store/cart checkout": {"cors": "TrafficPolicy infra/root-limits", "headerModifiers": "TrafficPolicy store/checkout-headers",
			"rateLimit": "TrafficPolicy infra/root-limits", "timeouts": "TrafficPolicy store/cart-limits"},
		"team-a/team-a rule-0": {"cors": "TrafficPolicy infra/root-limits", "rateLimit": "TrafficPolicy infra/root-limits"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("effective (-want +got):\n%s", d)
	}
	exp, err := (Profile{}).ExplainPolicy(in, trafficPolicy, policy.Ref{Namespace: "store", Name: "cart-limits"})
	if err != nil {
		t.Fatal(err)
	}
	wantRules := []profile.RuleFate{
		{ID: "rateLimit", State: "replaced", By: "TrafficPolicy infra/root-limits", Paths: 1},
		{ID: "timeouts", State: "kept", Paths: 1},
	}
	if d := cmp.Diff(wantRules, exp.Rules); d != "" {
		t.Errorf("explain rules (-want +got):\n%s", d)
	}
}

// TestModeChange: an HTTPRoute or Gateway write is compared with the stored annotation; only a
// change is projected. An update that keeps the annotation does not derive the world (the route
// updates of a diff would each derive it anew in their trial).
func TestModeChange(t *testing.T) {
	in := sample(t)
	w := engine.New(in.Objects)
	root := func(mode string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace("infra")
		u.SetName("root")
		if mode != "" {
			u.SetAnnotations(map[string]string{engine.Annotation: mode})
		}
		return u
	}
	cases := []struct {
		name    string
		u, old  *unstructured.Unstructured
		want    []string
		derives bool
	}{
		{"annotation removed: the children's own rateLimit wins again", root(""), nil,
			[]string{"PRC-W232 this annotation change takes `rateLimit` away from 1 child route"}, true},
		{"unchanged", root(string(engine.ShallowPreferParent)), nil, nil, true},
		// kgateway v2.2's defaultMerge keeps a field the child sets under either DeepMerge mode.
		{"deep prefer parent gives the shallow fields back to the children", root(string(engine.DeepPreferParent)), nil,
			[]string{"PRC-W232 this annotation change takes `rateLimit` away from 1 child route"}, true},
		{"unchanged from the replaced object's annotation", root(string(engine.ShallowPreferParent)), root(string(engine.ShallowPreferParent)), nil, false},
		{"from the replaced object's annotation, not the stored one", root(string(engine.ShallowPreferParent)), root(string(engine.DeepPreferChild)),
			[]string{"PRC-W233 this annotation change overrides `rateLimit` of 1 child route with the parent's"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			derived := false
			world := func() *engine.World { derived = true; return w }
			if d := cmp.Diff(c.want, modeChange(world, "HTTPRoute", c.u, c.old)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if derived != c.derives {
				t.Errorf("world derived: %v, want %v", derived, c.derives)
			}
		})
	}
}

// TestGatewayModeUnread: kgateway 2.2 never reads a Gateway's inherited-policy-priority, so a
// Gateway write that sets or changes it is told it has no effect; an update that keeps it, or a
// Gateway without it, gets nothing.
func TestGatewayModeUnread(t *testing.T) {
	w := engine.New(sample(t).Objects)
	gw := func(mode string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetNamespace("infra")
		u.SetName("gw")
		if mode != "" {
			u.SetAnnotations(map[string]string{engine.Annotation: mode})
		}
		return u
	}
	warn := []string{"PRC-W235 kgateway 2.2 does not read kgateway.dev/inherited-policy-priority on a Gateway: ShallowMergePreferParent has no effect, the routes' own values still win over this Gateway's policies"}
	cases := []struct {
		name   string
		u, old *unstructured.Unstructured
		want   []string
	}{
		{"set on create", gw(string(engine.ShallowPreferParent)), nil, warn},
		{"changed on update", gw(string(engine.ShallowPreferParent)), gw(string(engine.DeepPreferChild)), warn},
		{"kept on update", gw(string(engine.ShallowPreferParent)), gw(string(engine.ShallowPreferParent)), nil},
		{"none", gw(""), gw(string(engine.ShallowPreferParent)), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			world := func() *engine.World { t.Error("a Gateway write derived the world"); return w }
			if d := cmp.Diff(c.want, modeChange(world, "Gateway", c.u, c.old)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
