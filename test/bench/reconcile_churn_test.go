//go:build bench

package bench

import (
	"context"
	"encoding/json"
	"flag"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/test/harness"
)

var (
	reconcileChurnFor = flag.Duration("reconcile-churn-for", 10*time.Second, "TestReconcileChurn: length of each churn phase")
	policyRate        = flag.Int("policy-changes", 10, "TestReconcileChurn: policy spec changes per second in the second phase")
	converge          = flag.Duration("converge", 2*time.Second, "TestReconcileChurn: the statuses must have converged this long after the last change (reported against)")
)

// TestReconcileChurn is the churn mode of `make bench-reconcile`: the manager with the status
// reconciler settles on the generated world, then a second client changes -route-changes HTTPRoute
// specs per second for -reconcile-churn-for (a route moves between its Gateway's listeners, which
// changes no policy's status), then the same plus -policy-changes policy spec changes per second
// (each bumps a generation, so each needs one status write). It reports the status writes per change
// of each phase, how long after the last change every policy had its conditions for its current
// generation and the last status write came (target within -converge), and fails if any status is
// written in the quiet window that follows (-quiet), when nothing changed.
func TestReconcileChurn(t *testing.T) {
	report("machine: %s", machine())
	env := startControlPlane(t)
	c := newClient(t, env)
	sz := worldSize()
	w := loadWorld(t, c, sz)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := watchStatus(ctx, t, env, w.Kind)
	kind := w.Kind.GVK.Kind
	writes := func() (float64, float64) { return harness.ReconcileWrites(kind), harness.ReconcileWrites("Gateway") }

	t0 := time.Now()
	startWebhooks(ctx, t, env, true)
	// The time of the last status write, sampled every 10 ms.
	var (
		wmu   sync.Mutex
		lastW time.Time
	)
	go func() {
		lp, lg := writes()
		for ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
			if p, g := writes(); p != lp || g != lg {
				wmu.Lock()
				lastW, lp, lg = time.Now(), p, g
				wmu.Unlock()
			}
		}
	}()
	// lastWrite waits until settled holds and no status was written for -quiet, and returns when the
	// last write after from came (from if none did).
	lastWrite := func(from time.Time, within time.Duration, settled func() bool) time.Time {
		last := func() time.Time {
			wmu.Lock()
			defer wmu.Unlock()
			if lastW.After(from) {
				return lastW
			}
			return from
		}
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, within, true, func(context.Context) (bool, error) {
			return settled() && time.Since(last()) >= *quiet, nil
		})
		if err != nil {
			t.Fatalf("not settled within %s: %d of %d policies have both conditions for their generation", within, tr.settledCount(), len(w.Policies))
		}
		return last()
	}
	all := func() bool { return tr.settledCount() == len(w.Policies) }
	lastWrite(t0, *settleMax, all)
	report("settled from cold in %s; %s", since(t0), machine())

	churn := newRouteChurn(secondClient(t, env), sz)
	other := secondClient(t, env)
	var policies []*policy.Policy
	for i := range w.Policies {
		policies = append(policies, w.Policies[(i*7919)%len(w.Policies)])
	}
	phases := []struct {
		name          string
		policiesPerS  int
		routesPerS    int
		changedPolicy map[types.NamespacedName]int64
		changedAt     map[types.NamespacedName]time.Time
	}{
		{name: "routes only", routesPerS: *routeRate},
		{name: "routes and policies", routesPerS: *routeRate, policiesPerS: *policyRate, changedPolicy: map[types.NamespacedName]int64{}, changedAt: map[types.NamespacedName]time.Time{}},
	}
	next := 0
	for _, ph := range phases {
		p0, g0 := writes()
		report("phase %s: %d HTTPRoute and %d policy changes per second for %s; %s", ph.name, ph.routesPerS, ph.policiesPerS, *reconcileChurnFor, machine())
		stopRoutes := churn.start(ctx, ph.routesPerS)
		var lastPolicy time.Time
		policyChanges := 0
		if ph.policiesPerS > 0 {
			tk, stopTicks := ticks(ph.policiesPerS)
			end := time.After(*reconcileChurnFor)
		loop:
			for {
				select {
				case <-end:
					break loop
				case <-tk:
				}
				p := policies[next%len(policies)]
				u, err := gen.PolicyObject(changedPolicy(p, next/len(policies)))
				if err != nil {
					t.Fatal(err)
				}
				next++
				patch, err := json.Marshal(map[string]interface{}{"spec": u.Object["spec"]})
				if err != nil {
					t.Fatal(err)
				}
				if err := other.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch)); err != nil {
					t.Fatalf("changing policy %s/%s: %v", u.GetNamespace(), u.GetName(), err)
				}
				lastPolicy = time.Now()
				ph.changedPolicy[client.ObjectKeyFromObject(u)] = u.GetGeneration()
				ph.changedAt[client.ObjectKeyFromObject(u)] = lastPolicy
				policyChanges++
			}
			stopTicks()
		} else {
			time.Sleep(*reconcileChurnFor)
		}
		routeChanges, dropped := stopRoutes()
		churn.check(t)
		last := churn.lastChange()
		if lastPolicy.After(last) {
			last = lastPolicy
		}
		// Converged: every policy has its conditions for the generation the last change gave it.
		lw := lastWrite(last, *settleMax, func() bool { return all() && tr.seen(ph.changedPolicy) })
		p1, g1 := writes()
		report("phase %s: %d HTTPRoute changes (%d ticks dropped), %d policy changes; status writes: %.0f %s, %.0f Gateway",
			ph.name, routeChanges, dropped, policyChanges, p1-p0, kind, g1-g0)
		changes := float64(routeChanges) + float64(policyChanges)
		after := "none"
		if lw.After(last) {
			after = "the last " + lw.Sub(last).Round(time.Millisecond).String() + " after it"
		}
		report("phase %s: status writes per change %.3f; status writes after the last change: %s (target ≤ %s)",
			ph.name, (p1-p0+g1-g0)/changes, after, *converge)
		if policyChanges > 0 {
			// From each policy change (the client's answer) to the watch seeing both conditions for it.
			var lat []time.Duration
			convergedAt := lastPolicy
			for k, at := range ph.changedAt {
				done := tr.settledTime(k)
				lat = append(lat, maxDur(done.Sub(at), 0))
				if done.After(convergedAt) {
					convergedAt = done
				}
			}
			s := summarize(lat)
			report("phase %s: status writes per policy change %.3f; each change's conditions seen p50 %s, p99 %s, max %s after it; all converged %s after the last policy change (target ≤ %s)",
				ph.name, (p1-p0+g1-g0)/float64(policyChanges), ms(s.p50), ms(s.p99), ms(quantile(lat, 1)), convergedAt.Sub(lastPolicy).Round(time.Millisecond), *converge)
			if d := convergedAt.Sub(lastPolicy); d > *converge {
				report("phase %s: NOT within target: converged %s after the last change", ph.name, d.Round(time.Millisecond))
			}
		}
	}

	p0, g0 := writes()
	report("quiet: no changes for %s", *quiet*2)
	time.Sleep(*quiet * 2)
	p1, g1 := writes()
	report("quiet: status writes %.0f %s, %.0f Gateway (want none)", p1-p0, kind, g1-g0)
	if p1 != p0 || g1 != g0 {
		t.Errorf("status writes while nothing changed: %.0f %s, %.0f Gateway", p1-p0, kind, g1-g0)
	}
}

// changedPolicy is p with its limits changed, differently on each pass over the policies.
func changedPolicy(p *policy.Policy, pass int) *policy.Policy {
	q := *p
	limit := map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(2000 + pass), "window": "1m"}}}
	if q.Bare != nil {
		b := *q.Bare
		b.Rules = copyRules(b.Rules)
		b.Rules["per-user"] = limit
		q.Bare = &b
	}
	if q.Defaults != nil {
		b := *q.Defaults
		b.Rules = copyRules(b.Rules)
		b.Rules["global"] = limit
		q.Defaults = &b
	}
	return &q
}

func copyRules(in map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// seen tells whether the watch has seen each policy of want at least at its generation there.
func (tr *statusWatch) seen(want map[types.NamespacedName]int64) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for k, g := range want {
		if tr.gens[k] < g || tr.conds[k] == "" {
			return false
		}
	}
	return true
}

// settledTime is when the watch first saw policy k with both conditions for its current generation.
func (tr *statusWatch) settledTime(k types.NamespacedName) time.Time {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.settledAt[k]
}

func maxDur(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}
