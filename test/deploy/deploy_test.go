package deploy

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/certs"
	"github.com/precedent-dev/precedent/test/harness"
)

// TestCertManagerMode installs config/default (cert-manager mode: the test is cert-manager with a
// CA Issuer) and runs two replicas under the write stream through a rollout, a certificate renewal,
// a replace of the webhook configuration with config/keep-cabundle installed, and crashes.
func TestCertManagerMode(t *testing.T) {
	ctx := context.Background()
	r, err := RenderKustomize(filepath.Join(root, "config", "default"))
	if err != nil {
		t.Fatal(err)
	}
	applied, err := cl.Install(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("applied %d objects of %s (%v)", len(applied), r.Source, applied)
	if cl.Issuer, err = NewIssuer(); err != nil {
		t.Fatal(err)
	}
	crt, key, err := cl.Issuer.Serving(ServiceDNS, ServiceDNS+".cluster.local")
	if err != nil {
		t.Fatal(err)
	}
	cl.Serving = map[string][]byte{"tls.crt": crt, "tls.key": key, "ca.crt": cl.Issuer.CAPEM}
	if err := cl.InjectCA(ctx, cl.Issuer.CAPEM); err != nil {
		t.Fatal(err)
	}
	if err := createLoadTargets(ctx, cl.Admin); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := 0; i < 2; i++ {
		if _, err := cl.StartPod(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("two replicas ready and in the endpoints in %s", time.Since(t0).Round(time.Millisecond))
	harness.Eventually(t, "the API server calls the webhook through the Service", func() (bool, string) {
		return harness.Denied(ctx, cl.Admin, harness.Probe)
	})

	load, stop := startLoad(t)
	defer func() {
		if t.Failed() {
			t.Log(cl.State(ctx, lease))
		}
	}()

	t.Run("a rolling restart", func(t *testing.T) {
		from := time.Now()
		if err := cl.RollingRestart(ctx); err != nil {
			t.Fatal(err)
		}
		w := load.Between(from, time.Now())
		t.Logf("(a) rolling restart of 2 replicas: %s", w.Summary())
		reportRate(t, w)
		if len(w.Failed) > 0 {
			t.Errorf("(a) %d writes failed during the rolling restart", len(w.Failed))
		}
	})
	t.Run("c serving certificate renewal", func(t *testing.T) { certificateRenewal(t, load) })
	t.Run("d2 caBundle kept by an admission policy", func(t *testing.T) { caBundleKept(t, load) })
	t.Run("g one replica killed", func(t *testing.T) { replicaKilled(t, load) })
	t.Run("e leader killed", func(t *testing.T) { leaderKilled(t, load) })
	// (h) before (f): it measures admission under a big policy in steady state. Right after the API
	// server restart the replicas are not (both old and new code measured 0 status writes and
	// 60-90 ms p50 for changing writes for the next minute there); (f) checks its own recovery.
	t.Run("h writes under a 5,000-rule Gateway policy", func(t *testing.T) { stop(); underBigPolicy(t) })
	t.Run("f API server restarted", func(t *testing.T) {
		l, stop := startLoad(t) // (h) stopped the first stream
		defer stop()
		apiServerRestarted(t, l)
	})
	t.Run("i served through an API server restart", func(t *testing.T) { stop(); servedThroughRestart(t) })
}

// lease is the leader-election Lease of the replicas (serve's LeaderElectionID).
const lease = "precedent.policy.precedent.dev"

// reportRate says at what rate the stream ran in w (it aims at 50 writes/s). A rate is what the
// machine gives, not a promise of Precedent's: a loaded CI runner gives less, and fails nothing.
func reportRate(t *testing.T, w Window) {
	t.Helper()
	t.Logf("the write stream ran at %.1f writes/s (aiming at 50)", w.Rate())
}

// certificateRenewal is (c): cert-manager renews the serving certificate (same CA, new key) and
// the kubelet swaps the files in each pod's volume in turn; every replica must serve the new one
// with no write failing.
func certificateRenewal(t *testing.T, load *Load) {
	ctx := context.Background()
	from := time.Now()
	crt, key, err := cl.Issuer.Serving(ServiceDNS, ServiceDNS+".cluster.local")
	if err != nil {
		t.Fatal(err)
	}
	cl.Serving = map[string][]byte{"tls.crt": crt, "tls.key": key, "ca.crt": cl.Issuer.CAPEM}
	for _, p := range cl.Pods() {
		if err := WriteVolume(p.CertDir, cl.Serving); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, "every replica serves the renewed certificate", func() (bool, string) { return cl.ServesCert(crt) })
	served := time.Since(from)
	// A second of writes on the new certificate counts too.
	settle := time.Now().Add(time.Second)
	harness.Eventually(t, "a second of writes after the renewal", func() (bool, string) { return time.Now().After(settle), "" })
	_ = ctx
	w := load.Between(from, time.Now())
	t.Logf("(c) serving certificate renewed, files swapped: every replica served it after %s; %s", served.Round(time.Millisecond), w.Summary())
	reportRate(t, w)
	if len(w.Failed) > 0 {
		t.Errorf("(c) %d writes failed during the certificate renewal", len(w.Failed))
	}
}

// replicaKilled is (g): one replica SIGKILLed; writes may fail until the API server knows its
// endpoint is removed (a second after the removal at most), none after. Then the Deployment's
// replacement comes up, with a 5,000-rule policy on the stream's Gateway, and its first admissions
// are compared with its steady ones (firstAdmissions).
func replicaKilled(t *testing.T, load *Load) {
	ctx := context.Background()
	big := bigGatewayPolicy()
	big.SetName("big-gateway-policy-g")
	if err := cl.Admin.Create(ctx, big); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Admin.Delete(ctx, big) }()
	victim := cl.Pods()[0]
	leader, _ := cl.Leader(ctx, lease)
	killed := time.Now()
	removed, err := cl.KillPod(ctx, victim)
	if err != nil {
		t.Fatal(err)
	}
	// The API server routes a webhook call by the EndpointSlices its own informer holds, which
	// learns of the removal a moment after the update returns here (on a loaded machine, a write
	// started within a millisecond of it was once sent to the dead pod): writes in the first
	// endpointLag after the removal are reported, those after it must all pass.
	const endpointLag = time.Second
	settle := time.Now().Add(endpointLag + 2*time.Second)
	harness.Eventually(t, "two seconds of writes after the endpoint is removed and propagated", func() (bool, string) { return time.Now().After(settle), "" })
	before, lag, after := load.Between(killed, removed), load.Between(removed, removed.Add(endpointLag)), load.Between(removed.Add(endpointLag), time.Now())
	t.Logf("(g) %s SIGKILLed (the leader: %t), endpoint removed %s later; until then: %s; in the %s after: %s; after that: %s", victim.Name, leader == victim, removed.Sub(killed).Round(time.Millisecond), before.Summary(), endpointLag, lag.Summary(), after.Summary())
	if len(after.Failed) > 0 {
		t.Errorf("(g) %d writes started more than %s after the endpoint was removed failed", len(after.Failed), endpointLag)
	}
	survivor := cl.Pods()[0]
	fresh, err := cl.StartPod(ctx)
	if err != nil {
		t.Fatal(err)
	}
	firstAdmissionsOf(t, "(g)", fresh, survivor, load)
}

// firstAdmissionsOf waits for 3×firstAdmissions admissions of fresh and reports its first ones
// against its steady ones and other's (Warmth). Issue 37 aims at ≤ 1.5× at p50 and in the mean; a
// speed figure, which CPU contention moves (the other helpers and the API server share 2 cores
// here), so it fails nothing: the target is BenchmarkValidateFresh's.
func firstAdmissionsOf(t *testing.T, scenario string, fresh, other *Pod, load *Load) {
	var adms []Admission
	harness.EventuallyWithin(t, 2*time.Minute, fmt.Sprintf("%d admissions of %s", 3*firstAdmissions, fresh.Name), func() (bool, string) {
		var err error
		adms, err = fresh.Admissions()
		return err == nil && len(adms) >= 3*firstAdmissions, fmt.Sprintf("%d admissions, %v", len(adms), err)
	})
	others, err := other.Admissions()
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWarmth(adms, others)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s the replacement %s's first admissions against its steady ones, 5,000-rule Gateway policy in the cluster:\n%s", scenario, fresh.Name, w.Report(load))
}

// leaderKilled is (e): the leader SIGKILLed; status changes made meanwhile (new policies, one
// accepted and one whose target is missing, and a policy moved to a missing target) must converge
// (reported against the 20 s the design aims at; failing only past two minutes, which no CPU
// contention explains).
func leaderKilled(t *testing.T, load *Load) {
	ctx := context.Background()
	// In steady state first: a policy whose target is missing gets TargetNotFound.
	steadyState(ctx, t, currentLeader(ctx, t))
	leader := currentLeader(ctx, t)
	moved := Policy(loadNS, "e-moved", "Gateway", loadGateway, map[string]interface{}{"defaults": map[string]interface{}{"limits": Limits("e", 5)}})
	if err := cl.Admin.Create(ctx, moved); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, "the leader accepts e-moved", func() (bool, string) {
		s, r, cur, err := Accepted(ctx, cl.Admin, loadNS, "e-moved")
		return s == "True" && cur, fmt.Sprintf("Accepted=%s/%s current=%t err=%v", s, r, cur, err)
	})
	from := time.Now()
	removed, err := cl.KillPod(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	killed := from
	want := map[string]string{} // policy → Accepted status/reason
	for i := 0; i < 5; i++ {
		name := fmt.Sprintf("e-new-%d", i)
		if err := cl.Admin.Create(ctx, Policy(loadNS, name, "Gateway", loadGateway, map[string]interface{}{"defaults": map[string]interface{}{"limits": Limits("e", 5)}})); err != nil {
			t.Fatal(err)
		}
		want[name] = "True/Accepted"
		name = fmt.Sprintf("e-missing-%d", i)
		if err := cl.Admin.Create(ctx, Policy(loadNS, name, "Gateway", "missing", map[string]interface{}{"defaults": map[string]interface{}{"limits": Limits("e", 5)}})); err != nil {
			t.Fatal(err)
		}
		want[name] = "False/TargetNotFound"
	}
	if err := cl.Admin.Patch(ctx, moved, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"targetRef":{"name":"missing"}}}`))); err != nil {
		t.Fatal(err)
	}
	want["e-moved"] = "False/TargetNotFound"
	var takeover time.Duration
	harness.EventuallyWithin(t, 60*time.Second, "another replica takes the lease", func() (bool, string) {
		p, holder := cl.Leader(ctx, lease)
		takeover = time.Since(killed)
		return p != nil && p != leader, "holder: " + holder
	})
	harness.EventuallyWithin(t, 2*time.Minute, "the status changes converge", func() (bool, string) {
		var off []string
		for name, w := range want {
			s, r, cur, err := Accepted(ctx, cl.Admin, loadNS, name)
			if s+"/"+r != w || !cur {
				off = append(off, fmt.Sprintf("%s: Accepted=%s/%s current=%t (want %s) %v", name, s, r, cur, w, err))
			}
		}
		return len(off) == 0, strings.Join(off, "\n")
	})
	took := time.Since(killed)
	newLeader, holder := cl.Leader(ctx, lease)
	w := load.Between(from, time.Now())
	t.Logf("(e) leader %s SIGKILLed (endpoint removed after %s): lease taken %s after the kill by %v (%s), 11 status changes converged %s after the kill; writes meanwhile: %s",
		leader.Name, removed.Sub(killed).Round(time.Millisecond), takeover.Round(time.Millisecond), podName(newLeader), holder, took.Round(time.Millisecond), w.Summary())
	if took > 20*time.Second {
		t.Logf("(e) the status changes converged %s after the kill, over the 20 s aimed at", took.Round(time.Millisecond))
	}
	if _, err := cl.StartPod(ctx); err != nil {
		t.Fatal(err)
	}
}

// currentLeader waits until a replica holds the lease and returns it.
func currentLeader(ctx context.Context, t *testing.T) *Pod {
	var leader *Pod
	harness.Eventually(t, "a replica holds the lease", func() (bool, string) {
		var holder string
		leader, holder = cl.Leader(ctx, lease)
		return leader != nil, "holder: " + holder
	})
	return leader
}

// steadyState checks, before any kill, that the leader marks a policy whose target is missing
// TargetNotFound (within a minute; the time it took is reported). A leader that loses its lease meanwhile (its container restarted, or
// the lease went to another replica: on a loaded 2-core machine a renewal can miss its deadline) is
// no steady state: that is said, and the check runs once more, with the replica that leads then.
func steadyState(ctx context.Context, t *testing.T, leader *Pod) {
	pre := Policy(loadNS, "e-precheck", "Gateway", "missing", map[string]interface{}{"defaults": map[string]interface{}{"limits": Limits("e", 5)}})
	if err := cl.Admin.Create(ctx, pre); err != nil {
		t.Fatal(err)
	}
	_, holder := cl.Leader(ctx, lease)
	restarts := leader.RestartCount()
	for attempt := 0; attempt < 2; attempt++ {
		t0 := time.Now()
		state, ok := awaitTargetNotFound(ctx, "e-precheck", time.Minute)
		if ok {
			t.Logf("(e) steady state: a policy with a missing target got TargetNotFound in %s", time.Since(t0).Round(time.Millisecond))
			return
		}
		_, now := cl.Leader(ctx, lease)
		if attempt == 0 && (now != holder || leader.RestartCount() != restarts) {
			t.Logf("(e) the lease moved during the steady-state check (%s → %s, %s restarted %d times): checking again with the replica that leads now",
				holder, now, leader.Name, leader.RestartCount()-restarts)
			continue
		}
		// Measured on: the failover below still runs.
		t.Errorf("(e) steady state, before any kill: the leader did not mark a policy with a missing target TargetNotFound within a minute (%s)\n%s", state, cl.State(ctx, lease))
		return
	}
}

// awaitTargetNotFound waits up to d for the policy name to be marked Accepted=False/TargetNotFound
// for its current generation; it returns the last state seen.
func awaitTargetNotFound(ctx context.Context, name string, d time.Duration) (string, bool) {
	var state string
	for deadline := time.Now().Add(d); time.Now().Before(deadline); <-time.After(50 * time.Millisecond) {
		s, r, cur, err := Accepted(ctx, cl.Admin, loadNS, name)
		if s == "False" && r == "TargetNotFound" && cur {
			return "", true
		}
		state = fmt.Sprintf("Accepted=%s/%s current=%t err=%v", s, r, cur, err)
	}
	return state, false
}

func podName(p *Pod) string {
	if p == nil {
		return "none"
	}
	return p.Name
}

// apiServerRestarted is (f): kube-apiserver restarted; within 10 s of it being healthy again the
// webhooks decide correctly, on state written after the restart: a Gateway-level override created
// then makes a route-level unset of its rule a rejection.
func apiServerRestarted(t *testing.T, load *Load) {
	ctx := context.Background()
	route := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]interface{}{"namespace": loadNS, "name": "route-f"},
		"spec": map[string]interface{}{"parentRefs": []interface{}{map[string]interface{}{"name": loadGateway}},
			"rules": []interface{}{map[string]interface{}{"name": "main"}}},
	}}
	if err := cl.Admin.Create(ctx, route); err != nil {
		t.Fatal(err)
	}
	unset := Policy(loadNS, "f-unset", "HTTPRoute", "route-f", map[string]interface{}{"unset": []interface{}{"f"}})
	harness.Eventually(t, "the route-level unset is admitted before the override exists", func() (bool, string) {
		return Decided(ctx, cl.Admin, unset, "")
	})
	down := time.Now()
	stopErr, err := cl.RestartAPIServer()
	if err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	if stopErr != nil {
		t.Logf("(f) kube-apiserver did not stop on SIGTERM: %v (killed)", stopErr)
	}
	override := Policy(loadNS, "f-override", "Gateway", loadGateway, map[string]interface{}{"overrides": map[string]interface{}{"limits": Limits("f", 1)}})
	var created time.Duration
	harness.EventuallyWithin(t, 30*time.Second, "the override is admitted", func() (bool, string) {
		err := cl.Admin.Create(ctx, override.DeepCopy())
		created = time.Since(up)
		return err == nil || apierrors.IsAlreadyExists(err), fmt.Sprint(err)
	})
	harness.EventuallyWithin(t, 30*time.Second, "the route-level unset of the overridden rule is rejected", func() (bool, string) {
		return Decided(ctx, cl.Admin, unset, "cannot be unset")
	})
	correct := time.Since(up)
	probe, _ := Decided(ctx, cl.Admin, Policy(loadNS, "f-probe", "Gateway", loadGateway, map[string]interface{}{"unset": []interface{}{"a", "a"}}), "")
	w := load.Between(up, up.Add(correct))
	t.Logf("(f) kube-apiserver restarted in %s; after it was healthy: the override admitted after %s, the unset rejected (correct decision) after %s; writes while it was down: %d; after: %s",
		up.Sub(down).Round(time.Millisecond), created.Round(time.Millisecond), correct.Round(time.Millisecond), load.Between(down, up).Writes, w.Summary())
	if probe {
		t.Errorf("(f) a duplicate unset was admitted after the restart")
	}
	if correct > 10*time.Second {
		t.Errorf("(f) correct decisions came back %s after the API server, over 10 s", correct.Round(time.Millisecond))
	}
}

// TestBuiltinMode replaces the cert-manager install with config/builtin-certs: the replicas keep
// the CA and serving certificate in a Secret and inject caBundle themselves. The Secret is seeded
// as an older install's would be, with a CA that is due for rotation 25 s later, so the rotation
// (publish the next CA, let it settle, switch) happens under the write stream.
func TestBuiltinMode(t *testing.T) {
	ctx := context.Background()
	if err := cl.StopAll(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := RenderKustomize(filepath.Join(root, "config", "builtin-certs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Install(ctx, r); err != nil {
		t.Fatal(err)
	}
	cl.Builtin = true
	day := 24 * time.Hour
	old, err := NewIssuerValid(365*day+25*time.Second, 60*day) // the built-in CA is renewed a year before its end
	if err != nil {
		t.Fatal(err)
	}
	crt, key, err := old.Serving(ServiceDNS)
	if err != nil {
		t.Fatal(err)
	}
	if err := seedSecret(ctx, map[string][]byte{certs.KeyCA: old.CAPEM, certs.KeyCAKey: old.KeyPEM, "tls.crt": crt, "tls.key": key}); err != nil {
		t.Fatal(err)
	}
	if err := createLoadTargets(ctx, cl.Admin); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := cl.StartPod(ctx); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, "the API server calls the webhook through the Service, trusting the injected CA", func() (bool, string) {
		return harness.Denied(ctx, cl.Admin, harness.Probe)
	})
	load, _ := startLoad(t)
	defer func() {
		if t.Failed() {
			t.Log(cl.State(ctx, lease))
		}
	}()
	t.Run("b CA rotation", func(t *testing.T) { caRotation(t, load, old) })
	t.Run("d caBundle restored", func(t *testing.T) { caBundleRestored(t, load) })
	t.Run("d2 caBundle kept by an admission policy", func(t *testing.T) { caBundleKept(t, load) })
}

const secretName = "precedent-webhook-tls"

func seedSecret(ctx context.Context, data map[string][]byte) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cl.SA.Namespace, Name: secretName}}
	if err := cl.Admin.Delete(ctx, s); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	s.Type, s.Data = corev1.SecretTypeTLS, data
	return cl.Admin.Create(ctx, s)
}

// caRotation is (b): the replicas rotate the CA that old made; no write may fail from before the
// next CA is published until every replica serves a certificate from the new CA.
func caRotation(t *testing.T, load *Load, old *Issuer) {
	ctx := context.Background()
	from := time.Now()
	sec := &corev1.Secret{}
	harness.EventuallyWithin(t, 3*time.Minute, "the CA is switched and every replica serves a certificate from the new CA", func() (bool, string) {
		if err := cl.Admin.Get(ctx, client.ObjectKey{Namespace: cl.SA.Namespace, Name: secretName}, sec); err != nil {
			return false, err.Error()
		}
		if bytes.Equal(sec.Data[certs.KeyCA], old.CAPEM) || len(sec.Data[certs.KeySwitchedAt]) == 0 {
			return false, "secret: " + certs.Describe(sec.Data)
		}
		return cl.ServesCert(sec.Data["tls.crt"])
	})
	served := time.Now()
	settle := served.Add(2 * time.Second)
	harness.Eventually(t, "two seconds of writes after the switch", func() (bool, string) { return time.Now().After(settle), "" })
	w := load.Between(from, time.Now())
	t.Logf("(b) CA rotated (switched at %s; secret now: %s), every replica on the new CA %s after the stream's window began; %s",
		sec.Data[certs.KeySwitchedAt], certs.Describe(sec.Data), served.Sub(from).Round(time.Millisecond), w.Summary())
	reportRate(t, w)
	if len(w.Failed) > 0 {
		t.Errorf("(b) %d writes failed during the CA rotation", len(w.Failed))
	}
}

// TestChartMode installs the Helm chart (built-in certificates, rendered with Helm's library) as a
// cluster admin would, with no Secret in place: the replicas make the CA and serving certificate
// themselves, inject the CA bundle, and go through a rolling restart under the write stream with no
// failed write.
func TestChartMode(t *testing.T) {
	ctx := context.Background()
	if err := cl.StopAll(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := RenderChart(root, "certificates: {mode: builtin}\n")
	if err != nil {
		t.Fatal(err)
	}
	// helm install --create-namespace: the chart itself holds no Namespace.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "precedent-system"}}
	if err := cl.Admin.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	applied, err := cl.Install(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("applied %d objects of %s", len(applied), r.Source)
	cl.Builtin = true
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cl.SA.Namespace, Name: secretName}}
	if err := cl.Admin.Delete(ctx, s); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if err := createLoadTargets(ctx, cl.Admin); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i := 0; i < 2; i++ {
		if _, err := cl.StartPod(ctx); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, "the API server calls the webhook through the Service, trusting the CA the replicas made", func() (bool, string) {
		return harness.Denied(ctx, cl.Admin, harness.Probe)
	})
	t.Logf("chart: two replicas ready, their own CA injected, in %s", time.Since(t0).Round(time.Millisecond))
	load, _ := startLoad(t)
	defer func() {
		if t.Failed() {
			t.Log(cl.State(ctx, lease))
		}
	}()
	from := time.Now()
	if err := cl.RollingRestart(ctx); err != nil {
		t.Fatal(err)
	}
	w := load.Between(from, time.Now())
	t.Logf("(a, chart) rolling restart of 2 replicas: %s", w.Summary())
	reportRate(t, w)
	if len(w.Failed) > 0 {
		t.Errorf("(a, chart) %d writes failed during the rolling restart", len(w.Failed))
	}
}
