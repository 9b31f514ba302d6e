package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTransitions(t *testing.T) {
	cond := func(typ, reason string, status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Reason: reason, Status: status, Message: typ + " " + reason}
	}
	enforced := cond(TypeEnforced, ReasonEnforced, metav1.ConditionTrue)
	overridden := cond(TypeEnforced, ReasonOverridden, metav1.ConditionFalse)
	accepted := cond(TypeAccepted, ReasonAccepted, metav1.ConditionTrue)
	invalid := cond(TypeAccepted, ReasonInvalid, metav1.ConditionFalse)
	for _, tc := range []struct {
		name          string
		before, after []metav1.Condition
		want          []eventRecord
	}{
		{"first status, enforced: nothing to say", nil, []metav1.Condition{accepted, enforced}, nil},
		{"becomes overridden: a Warning", []metav1.Condition{accepted, enforced}, []metav1.Condition{accepted, overridden},
			[]eventRecord{{corev1.EventTypeWarning, ReasonOverridden, "Enforced Overridden"}}},
		{"stays overridden: nothing new", []metav1.Condition{accepted, overridden}, []metav1.Condition{accepted, overridden}, nil},
		{"recovers, Overridden to Enforced: a Normal event", []metav1.Condition{accepted, overridden}, []metav1.Condition{accepted, enforced},
			[]eventRecord{{corev1.EventTypeNormal, ReasonEnforced, "Enforced Enforced"}}},
		{"recovers from Invalid: a Normal event", []metav1.Condition{invalid}, []metav1.Condition{accepted, enforced},
			[]eventRecord{{corev1.EventTypeNormal, ReasonAccepted, "Accepted Accepted"}}},
		{"condition gone: no recovery claimed", []metav1.Condition{accepted, overridden}, []metav1.Condition{accepted}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, transitions(tc.before, tc.after), cmp.AllowUnexported(eventRecord{})); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
