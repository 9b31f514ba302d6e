package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/effective"
	"github.com/precedent-dev/precedent/inventory"
	"github.com/precedent-dev/precedent/manifest"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/settings"
	"github.com/precedent-dev/precedent/topology"
)

func load(t *testing.T, kind string, paths ...string) *effective.Snapshot {
	t.Helper()
	objs, err := manifest.Read(paths...)
	if err != nil {
		t.Fatal(err)
	}
	us := make([]*unstructured.Unstructured, len(objs))
	for i := range objs {
		us[i] = objs[i].Unstructured
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
			snap := load(t, tt.kind, "../config/samples/rfc/"+tt.dir)
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
