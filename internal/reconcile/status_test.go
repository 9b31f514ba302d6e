package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
)

func load(t *testing.T, kind string, paths ...string) *effective.Snapshot {
	t.Helper()
	return snapshotOf(t, kind, read(t, paths...))
}

func read(t *testing.T, paths ...string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := manifest.Read(paths...)
	if err != nil {
		t.Fatal(err)
	}
	us := make([]*unstructured.Unstructured, len(objs))
	for i := range objs {
		us[i] = objs[i].Unstructured
	}
	return us
}

func snapshotOf(t *testing.T, kind string, us []*unstructured.Unstructured) *effective.Snapshot {
	t.Helper()
	reg := policy.NewRegistry(policy.Builtin()...)
	inv := inventory.Build(reg, us, nil)
	k, _ := reg.ByName(kind)
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	return effective.NewSnapshot(k, topology.Build(inv.Topology), inv.Views(k), ev)
}

func TestCompute(t *testing.T) {
	accepted := metav1.Condition{Type: TypeAccepted, Status: metav1.ConditionTrue, Reason: ReasonAccepted, Message: "Policy has been accepted"}
	enforced := func(st metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: TypeEnforced, Status: st, Reason: reason, Message: msg}
	}
	unsetOff := settings.Defaults()
	unsetOff.UnsetEnabled = false
	onePer := settings.Defaults()
	onePer.OnePolicyPerTarget = true
	tests := []struct {
		name     string
		dir      string
		kind     string
		policy   string
		settings *settings.Settings
		want     []metav1.Condition
	}{
		{"route policy fully replaced by an atomic override", "c1", "AuthPolicy", "c1/route-policy", nil,
			[]metav1.Condition{accepted, enforced(metav1.ConditionFalse, ReasonOverridden, "Policy has been overridden by c1/gw-policy")}},
		{"the atomic override itself", "c1", "AuthPolicy", "c1/gw-policy", nil,
			[]metav1.Condition{accepted, enforced(metav1.ConditionTrue, ReasonEnforced, "Policy has been successfully enforced")}},
		{"gateway atomic defaults replaced by a route policy", "a1", "AuthPolicy", "a1/gw-policy", nil,
			[]metav1.Condition{accepted, enforced(metav1.ConditionFalse, ReasonOverridden, "Policy has been overridden by a1/route-policy")}},
		{"route policy with defaults added", "b1", "AuthPolicy", "b1/route-policy", nil,
			[]metav1.Condition{accepted, enforced(metav1.ConditionTrue, ReasonEnforced, "Policy has been successfully enforced. The following defaults have been added by b1/gw-policy: authentication.a, authorization.b")}},
		{"route policy partly overridden by merge overrides", "d2", "AuthPolicy", "d2/route-policy", nil,
			[]metav1.Condition{accepted, enforced(metav1.ConditionTrue, ReasonPartiallyEnforced, "Policy has been successfully enforced. The following rules have been overridden by d2/gw-policy: authorization.b")}},
		{"gateway merge default partly replaced by the route", "b2", "AuthPolicy", "b2/gw-policy", nil,
			[]metav1.Condition{accepted, enforced(metav1.ConditionTrue, ReasonPartiallyEnforced, "Policy has been successfully enforced. The following rules have been overridden by b2/route-policy: authorization.b")}},
		{"unset stored before the switch went off is invalid", "f1", "AuthPolicy", "f1/route-policy", &unsetOff,
			[]metav1.Condition{
				{Type: TypeAccepted, Status: metav1.ConditionFalse, Reason: ReasonInvalid, Message: "Policy is invalid: spec.unset: Forbidden: unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset"},
				enforced(metav1.ConditionFalse, ReasonUnknown, "Policy has encountered some issues: it is not accepted"),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings.Defaults()
			if tt.settings != nil {
				s = *tt.settings
			}
			snap := load(t, tt.kind, "../../config/samples/rfc/"+tt.dir)
			var p *policy.Policy
			for _, q := range snap.Policies() {
				if q.Ref.String() == tt.policy {
					p = q
				}
			}
			if p == nil {
				t.Fatalf("policy %s not found", tt.policy)
			}
			got := Compute(snap, p, Invalid(snap, p, s), s)
			if diff := cmp.Diff(tt.want, got.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAffectedTypeIsQualifiedByTheKindsGroup(t *testing.T) {
	shipped := policy.Builtin()[1]
	configured := shipped
	configured.GVK.Group = "limits.example.com"
	cases := []struct {
		kind policy.Kind
		want string
	}{
		{shipped, "policy.precedent.dev/RateLimitPolicyAffected"},
		{configured, "limits.example.com/RateLimitPolicyAffected"},
	}
	for _, c := range cases {
		if got := AffectedType(c.kind); got != c.want {
			t.Errorf("AffectedType(%s) = %q, want %q", c.kind.GVK, got, c.want)
		}
	}
}

// policyOf finds the policy ns/name in snap.
func policyOf(t *testing.T, snap *effective.Snapshot, ref string) *policy.Policy {
	t.Helper()
	for _, q := range snap.Policies() {
		if q.Ref.String() == ref {
			return q
		}
	}
	t.Fatalf("policy %s not found", ref)
	return nil
}

// TestEnforcedMessages: a PartiallyEnforced message names every rule not in effect and who holds
// it; an Overridden message names who overrode the policy, or says that none of its rules is in
// effect when no other policy did.
func TestEnforcedMessages(t *testing.T) {
	tests := []struct {
		name   string
		dir    string
		policy string
		want   metav1.Condition
	}{
		{"atomic defaults replaced on one route list their rules and the route policy", "atomic-defaults-replaced-on-one-route", "m/gw-limits",
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionTrue, Reason: ReasonPartiallyEnforced,
				Message: "Policy has been successfully enforced. The following rules have been overridden by m/cart-limits: a, b"}},
		{"defaults unset on every route are unset by the unsetters", "unset-by-route", "m/gw-limits",
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionFalse, Reason: ReasonOverridden,
				Message: "Policy has been unset by m/cart-unset, m/shop-unset"}},
		{"a default unset on one route and another kept out there are listed apart", "unset-and-overridden-on-one-route", "m/gw-limits",
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionTrue, Reason: ReasonPartiallyEnforced,
				Message: "Policy has been successfully enforced. The following rules have been overridden by m/cart-b: b; the following rules have been unset by m/cart-unset: a"}},
		{"defaults whose when is false everywhere: overridden by no one", "when-false", "m/gw-limits",
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionFalse, Reason: ReasonOverridden,
				Message: "Policy has been overridden: none of its rules is in effect on the paths it reaches"}},
		{"rules overridden by two policies are listed under each", "limits-overridden-by-two", "m/cart-limits",
			metav1.Condition{Type: TypeEnforced, Status: metav1.ConditionTrue, Reason: ReasonPartiallyEnforced,
				Message: "Policy has been successfully enforced. The following rules have been overridden by m/gw-a: a; m/gw-b: b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings.Defaults()
			snap := load(t, "RateLimitPolicy", "testdata/topology.yaml", "testdata/"+tt.dir)
			p := policyOf(t, snap, tt.policy)
			got := Compute(snap, p, Invalid(snap, p, s), s)
			want := tt.want
			want.ObservedGeneration = p.Generation
			if diff := cmp.Diff(want, got.Conditions[len(got.Conditions)-1]); diff != "" {
				t.Errorf("Enforced (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMessagesEscapeUntrustedStrings: rule ids with a control character, a bidi override (U+202E)
// and invalid UTF-8 are printed escaped in the Enforced message, as are the Affected condition's
// policy names.
func TestMessagesEscapeUntrustedStrings(t *testing.T) {
	const bad = `a\x00\u202e\xff`
	us := read(t, "testdata/topology.yaml", "testdata/atomic-defaults-replaced-on-one-route")
	for _, u := range us {
		if u.GetName() != "gw-limits" {
			continue
		}
		limits, _, _ := unstructured.NestedMap(u.Object, "spec", "defaults", "limits")
		limits["a\x00\u202e\xff"] = limits["a"]
		delete(limits, "a")
		if err := unstructured.SetNestedMap(u.Object, limits, "spec", "defaults", "limits"); err != nil {
			t.Fatal(err)
		}
	}
	snap := snapshotOf(t, "RateLimitPolicy", us)
	p := policyOf(t, snap, "m/gw-limits")
	got := Compute(snap, p, nil, settings.Defaults())
	want := "Policy has been successfully enforced. The following rules have been overridden by m/cart-limits: " + bad + ", b"
	if msg := got.Conditions[len(got.Conditions)-1].Message; msg != want {
		t.Errorf("Enforced message = %q, want %q", msg, want)
	}
	if !printable.Safe(want) {
		t.Errorf("the message is not printable: %q", want)
	}
}

// TestNamesEscaped: a target name and a policy name holding a bidi override are printed escaped in
// the TargetNotFound message and in the Gateway's Affected condition.
func TestNamesEscaped(t *testing.T) {
	us := read(t, "testdata/topology.yaml", "testdata/atomic-defaults-replaced-on-one-route")
	for _, u := range us {
		switch u.GetName() {
		case "gw-limits":
			u.SetName("gw\u202elimits")
		case "cart-limits":
			if err := unstructured.SetNestedField(u.Object, "cart\u202e", "spec", "targetRef", "name"); err != nil {
				t.Fatal(err)
			}
		}
	}
	snap := snapshotOf(t, "RateLimitPolicy", us)
	s := settings.Defaults()
	p := policyOf(t, snap, "m/cart-limits")
	got := Compute(snap, p, nil, s).Conditions[0]
	if want := `Policy target HTTPRoute m/cart\u202e was not found`; got.Message != want {
		t.Errorf("Accepted message = %q, want %q", got.Message, want)
	}
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "m", Name: "gw"}}
	aff := affected(snap, gw)
	if want := `The object is affected by RateLimitPolicy m/gw\u202elimits`; aff.Message != want {
		t.Errorf("Affected message = %q, want %q", aff.Message, want)
	}
}

// TestOverriddenMessage: the Overridden message names who overrode the policy and who unset its
// rules, each in its own words.
func TestOverriddenMessage(t *testing.T) {
	ids := map[string]bool{"a": true}
	tests := []struct {
		name        string
		lost, unset map[string]map[string]bool
		want        string
	}{
		{"overridden only", map[string]map[string]bool{"m/x": ids}, nil, "Policy has been overridden by m/x"},
		{"unset only", nil, map[string]map[string]bool{"m/u": ids, "m/v": ids}, "Policy has been unset by m/u, m/v"},
		{"both", map[string]map[string]bool{"m/x": ids}, map[string]map[string]bool{"m/u": ids}, "Policy has been overridden by m/x and unset by m/u"},
		{"no one", map[string]map[string]bool{"": ids}, nil, "Policy has been overridden: none of its rules is in effect on the paths it reaches"},
	}
	for _, tt := range tests {
		if got := overriddenMessage(tt.lost, tt.unset); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
