package deploy

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/precedent-dev/precedent/test/harness"
)

// servedThroughRestart is (i): kube-apiserver restarted under a stream of changing writes (creates,
// updates, deletes, 50/s) with a 5,000-rule policy on their Gateway. A lost lease stops only the
// leader's status reconciler, so no replica process may restart; the status writes must resume
// (issue 37 aims at 10 s after the API server is back; the test fails only past 60 s, as the CI
// machine may be loaded) and the changing writes' p50 must come back near its steady value: the
// report gives the ratio per 2 s window and when it was first back within 1.5×, and says so if the
// third 10 s after the restart is still over 5× (the bound (h) reports); a speed figure fails nothing.
func servedThroughRestart(t *testing.T) {
	ctx := context.Background()
	big := bigGatewayPolicy()
	big.SetName("big-gateway-policy-i")
	if err := cl.Admin.Create(ctx, big); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Admin.Delete(ctx, big) }()
	streams++
	l := &Load{C: cl.Admin, Namespace: loadNS, Prefix: fmt.Sprintf("restart%d", streams), Gateway: loadGateway, Rate: 50, Workers: 8, Timeout: 10 * time.Second}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); l.Run(sctx, 50*600) }()
	defer func() { cancel(); <-done }()

	// 5 s to warm the replicas' snapshots of the big policy, then 10 s of steady state.
	steadyFrom := time.Now().Add(5 * time.Second)
	steadyTo := steadyFrom.Add(10 * time.Second)
	await(t, steadyTo, "ten seconds of steady writes")
	steady := l.Between(steadyFrom, steadyTo)
	steadyStatus, err := CountAudit(cl.AuditLog, serviceAccountUser, statusUpdate, steadyFrom, steadyTo)
	if err != nil {
		t.Error(err)
	}
	if steady.P50 == 0 {
		t.Fatalf("(i) no steady write succeeded: %s", steady.Summary())
	}

	pods := cl.Pods()
	restarts := make([]int, len(pods))
	for i, p := range pods {
		restarts[i] = p.RestartCount()
	}
	_, before := cl.Leader(ctx, lease)
	down := time.Now()
	stopErr, err := cl.RestartAPIServer()
	if err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	if stopErr != nil {
		t.Logf("(i) kube-apiserver did not stop on SIGTERM: %v (killed)", stopErr)
	}

	// A policy whose target is missing, created after the restart: its status is the leader's.
	missing := Policy(loadNS, "i-missing", "Gateway", "missing", map[string]interface{}{"defaults": map[string]interface{}{"limits": Limits("i", 5)}})
	harness.EventuallyWithin(t, 60*time.Second, "a policy is created after the restart", func() (bool, string) {
		err := cl.Admin.Create(ctx, missing.DeepCopy())
		return err == nil || apierrors.IsAlreadyExists(err), fmt.Sprint(err)
	})
	created := time.Since(up)
	state, ok := awaitTargetNotFound(ctx, "i-missing", 60*time.Second)
	statusBack := time.Since(up)
	if !ok {
		t.Errorf("(i) the policy created %s after the API server came back was not marked TargetNotFound within 60 s (%s)\n%s",
			created.Round(time.Millisecond), state, cl.State(ctx, lease))
	}
	firstStatus, err := firstAudit(statusUpdate, up)
	if err != nil {
		t.Error(err)
	}

	await(t, up.Add(30*time.Second), "thirty seconds of writes after the restart")
	var ratios []string
	back := time.Duration(-1)
	for at := time.Duration(0); at < 30*time.Second; at += 2 * time.Second {
		w := l.Between(up.Add(at), up.Add(at+2*time.Second))
		if w.P50 == 0 {
			ratios = append(ratios, "-") // no write started then succeeded
			continue
		}
		r := float64(w.P50) / float64(steady.P50)
		ratios = append(ratios, fmt.Sprintf("%.2f", r))
		if back < 0 && r <= 1.5 {
			back = at
		}
	}
	first, third := l.Between(up, up.Add(10*time.Second)), l.Between(up.Add(20*time.Second), up.Add(30*time.Second))
	firstStatusWrites, err := CountAudit(cl.AuditLog, serviceAccountUser, statusUpdate, up, up.Add(10*time.Second))
	if err != nil {
		t.Error(err)
	}
	_, after := cl.Leader(ctx, lease)
	t.Logf("(i) kube-apiserver restarted in %s under 50 changing writes/s with a 5,000-rule Gateway policy; lease holder %s before, %s after",
		up.Sub(down).Round(time.Millisecond), before, after)
	t.Logf("(i) status: the first status write %s after the API server was back; a policy created %s after it marked TargetNotFound %s after it (target 10 s); status writes in the first 10 s: %d (steady: %d in 10 s)",
		firstStatus, created.Round(time.Millisecond), statusBack.Round(time.Millisecond), firstStatusWrites, steadyStatus)
	t.Logf("(i) changing writes: steady p50 %s (%s); after the restart: first 10 s p50 %s (ratio %.2f, %s), 20-30 s p50 %s (ratio %.2f, %s); p50 ratio per 2 s window: %s; back within 1.5× of steady from %s (target 10 s); writes while it was down: %d",
		steady.P50.Round(10*time.Microsecond), steady.Summary(), first.P50.Round(10*time.Microsecond), float64(first.P50)/float64(steady.P50), first.Summary(),
		third.P50.Round(10*time.Microsecond), float64(third.P50)/float64(steady.P50), third.Summary(), strings.Join(ratios, " "), backText(back), l.Between(down, up).Writes)
	var lost []string
	for _, p := range pods {
		lost = append(lost, fmt.Sprintf("%s %d", p.Name, logged(p, "lease lost")))
	}
	t.Logf("(i) leases lost and campaigned for again (the processes ran on): %s", strings.Join(lost, ", "))
	for i, p := range pods {
		if n := p.RestartCount(); n != restarts[i] {
			t.Errorf("(i) %s restarted %d times after the API server restart\n%s", p.Name, n-restarts[i], p.LogTail())
		}
	}
	if third.P50 == 0 || third.P50 > 5*steady.P50 { // a speed target: reported, as the ratios above
		t.Logf("(i) 20-30 s after the restart the changing writes' p50 %s is over 5× the steady %s", third.P50, steady.P50)
	}
}

// await waits until at.
func await(t *testing.T, at time.Time, what string) {
	t.Helper()
	harness.EventuallyWithin(t, time.Until(at)+time.Minute, what, func() (bool, string) { return time.Now().After(at), "" })
}

// firstAudit says how long after from the replicas first made a request matching r, as the audit
// log tells ("none" if they made none).
func firstAudit(r Rule, from time.Time) (string, error) {
	var first time.Time
	err := eachAudit(cl.AuditLog, serviceAccountUser, func(ev *auditEvent, got Rule) {
		if got == r && !ev.Received.Before(from) && (first.IsZero() || ev.Received.Before(first)) {
			first = ev.Received
		}
	})
	if first.IsZero() {
		return "none", err
	}
	return first.Sub(from).Round(time.Millisecond).String(), err
}

// logged counts the lines of the pod's log that contain text.
func logged(p *Pod, text string) int {
	b, _ := os.ReadFile(p.log.Name())
	return strings.Count(string(b), text)
}

func backText(d time.Duration) string {
	if d < 0 {
		return "never in 30 s"
	}
	return d.String()
}
