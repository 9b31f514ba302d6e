package leadership_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/assembly"
	"github.com/precedent-dev/precedent/test/harness"
)

const gatewayAndRoute = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: main}]
`

// missingTarget is a policy whose target does not exist: the reconciler marks it
// Accepted=False/TargetNotFound, and nothing else writes its status.
const missingTarget = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: %s}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: missing}
  defaults:
    rules:
      authorization:
        a: {opa: {rego: allow = true}}
`

const gatewayOverride = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    rules:
      authorization:
        z: {opa: {rego: allow = false}}
`

// routeUnset unsets the rule gatewayOverride sets: admitted before the override exists, denied
// after (the webhook must know the override from its informers).
const routeUnset = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: route-unset, namespace: {{ns}}}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [authorization.z]
`

// TestCachesSurviveALostLease takes the Lease from the replica (another holder renews it), checks
// that the status reconciler stops while the webhooks answer from informers that keep following
// the cluster, then lets the other holder's lease expire and checks that the replica leads again
// and writes the status it left unwritten, all in one process whose manager never stopped.
func TestCachesSurviveALostLease(t *testing.T) {
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, gatewayAndRoute, fmt.Sprintf(missingTarget, "before"))
	harness.Eventually(t, "the replica leads", func() (bool, string) { return h.Assembly.Leading(), holder(ctx) })
	awaitTargetNotFound(t, ns, "before")
	unset := strings.ReplaceAll(routeUnset, "{{ns}}", ns)
	if denied, err := harness.Denied(ctx, c, unset); denied {
		t.Fatalf("the route-level unset was denied before any override: %s", err)
	}

	intruder := newIntruder(t)
	harness.Eventually(t, "the replica gives the lease up to the other holder", func() (bool, string) {
		return !h.Assembly.Leading(), holder(ctx)
	})

	// Not leading: admissions are answered from informers that follow the cluster.
	harness.Apply(t, c, ns, gatewayOverride)
	harness.Eventually(t, "the webhook denies the unset of the override created after the lease was lost", func() (bool, string) {
		return harness.Denied(ctx, c, unset)
	})
	// ... and no status is written.
	harness.Apply(t, c, ns, fmt.Sprintf(missingTarget, "during"))
	harness.Consistently(t, 3*time.Second, "no status written while another replica holds the lease", func() (bool, string) {
		s := status(ctx, ns, "during")
		return s == "" && !h.Assembly.Leading(), fmt.Sprintf("status %q, leading %t, %s", s, h.Assembly.Leading(), holder(ctx))
	})
	if !h.Running() {
		t.Fatal("the manager stopped when the lease was lost")
	}

	intruder.stop() // its lease expires leaseDuration later
	harness.Eventually(t, "the replica leads again", func() (bool, string) { return h.Assembly.Leading(), holder(ctx) })
	awaitTargetNotFound(t, ns, "during")
	if denied, err := harness.Denied(ctx, c, unset); !denied {
		t.Errorf("the route-level unset of an override was admitted after the lease came back: %s", err)
	}
	if !h.Running() {
		t.Fatal("the manager stopped")
	}
}

// intruder holds the Lease as another replica would: it takes it over and renews it until stop.
type intruder struct {
	stop func()
}

func newIntruder(t *testing.T) *intruder {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	harness.Eventually(t, "another holder takes the Lease", func() (bool, string) {
		err := renewAs(ctx, "intruder")
		return err == nil, fmt.Sprint(err)
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(retryPeriod):
				_ = renewAs(ctx, "intruder") // a conflict is retried at the next tick
			}
		}
	}()
	in := &intruder{stop: func() { cancel(); wg.Wait() }}
	t.Cleanup(in.stop)
	return in
}

// renewAs writes the Lease as held by id, renewed now.
func renewAs(ctx context.Context, id string) error {
	l := &coordinationv1.Lease{}
	if err := c.Get(ctx, leaseKey, l); err != nil {
		return err
	}
	now := metav1.NewMicroTime(time.Now())
	if ptr.Deref(l.Spec.HolderIdentity, "") != id {
		l.Spec.AcquireTime = &now
		l.Spec.LeaseTransitions = ptr.To(ptr.Deref(l.Spec.LeaseTransitions, 0) + 1)
	}
	l.Spec.HolderIdentity, l.Spec.RenewTime = ptr.To(id), &now
	l.Spec.LeaseDurationSeconds = ptr.To(int32(leaseDuration / time.Second))
	return c.Update(ctx, l)
}

// leaseKey is the harness's Lease: serve's name, in the default namespace.
var leaseKey = types.NamespacedName{Namespace: metav1.NamespaceDefault, Name: assembly.LeaderElectionID}

func holder(ctx context.Context) string {
	l := &coordinationv1.Lease{}
	if err := c.Get(ctx, leaseKey, l); err != nil {
		return err.Error()
	}
	return "lease holder: " + ptr.Deref(l.Spec.HolderIdentity, "none")
}

// status renders the policy's Accepted condition ("" when it has none).
func status(ctx context.Context, ns, name string) string {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("policy.precedent.dev/v1alpha1")
	u.SetKind("AuthPolicy")
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return err.Error()
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, x := range conds {
		if m, _ := x.(map[string]interface{}); m["type"] == "Accepted" {
			return fmt.Sprintf("%v/%v", m["status"], m["reason"])
		}
	}
	return ""
}

func awaitTargetNotFound(t *testing.T, ns, name string) {
	t.Helper()
	harness.Eventually(t, name+" Accepted=False/TargetNotFound", func() (bool, string) {
		s := status(context.Background(), ns, name)
		return s == "False/TargetNotFound", fmt.Sprintf("Accepted %q, leading %t", s, h.Assembly.Leading())
	})
}
