package deploy

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// configUpdate is a replica's write of the validating webhook configuration (its caBundle).
var configUpdate = Rule{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations", Verb: "update"}

// caBundleRestored is (d): the validating webhook configuration replaced by the rendered one (as
// `kubectl replace` or a GitOps tool's replace does), which has no caBundle; the replicas must put
// it back within 5 s. Until the API server has the restored configuration, it calls the webhook
// without a CA to trust, and with failurePolicy Fail the writes it admits then fail: the report
// counts them over the 2 s after the restore, and says when the replicas' write came (the audit log)
// and when the restore was seen (polled every 5 ms).
func caBundleRestored(t *testing.T, load *Load) {
	ctx := context.Background()
	probes := startProbes(ctx, 4)
	from, replaced := replaceValidating(ctx, t)
	restored, state := awaitCABundle(ctx, 30*time.Second)
	if restored.IsZero() {
		t.Fatalf("(d) caBundle not back within 30 s: %s", state)
	}
	await(t, restored.Add(200*time.Millisecond), "the probes after the restore")
	probed := probes()
	took := restored.Sub(from)
	injected, err := firstAudit(configUpdate, from)
	if err != nil {
		t.Error(err)
	}
	harness.Eventually(t, "the webhook is called again", func() (bool, string) { return harness.Denied(ctx, cl.Admin, harness.Probe) })
	await(t, restored.Add(2*time.Second), "two seconds of writes after the restore")
	w := load.Between(from, time.Now())
	t.Logf("(d) validating webhook configuration replaced without caBundle (the update took %s): a replica's update of it received %s after the replace, caBundle seen back %s after it; writes from the replace to 2 s after the restore: %s%s",
		replaced.Sub(from).Round(time.Millisecond), injected, took.Round(time.Millisecond), w.Summary(), lastFailure(w, from))
	t.Logf("(d) the webhook probed back to back by 4 clients around the replace: %s", probed.describe(from))
	if took > 5*time.Second {
		t.Errorf("(d) caBundle restored after %s, over 5 s", took.Round(time.Millisecond))
	}
}

// replaceValidating replaces the validating webhook configuration by the rendered one, which has
// no caBundle; it returns when the update was sent and when it returned.
func replaceValidating(ctx context.Context, t *testing.T) (from, done time.Time) {
	t.Helper()
	rendered := cl.Manifests.Find("ValidatingWebhookConfiguration", "precedent")
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(rendered.GroupVersionKind())
	if err := cl.Admin.Get(ctx, client.ObjectKey{Name: "precedent"}, cur); err != nil {
		t.Fatal(err)
	}
	replaced := rendered.DeepCopy()
	replaced.SetResourceVersion(cur.GetResourceVersion())
	from = time.Now()
	if err := cl.Admin.Update(ctx, replaced); err != nil {
		t.Fatal(err)
	}
	return from, time.Now()
}

// awaitCABundle polls the validating webhook configuration every 5 ms until every webhook has a
// caBundle, and returns when that was first seen (zero if not within d) and the last state.
func awaitCABundle(ctx context.Context, d time.Duration) (time.Time, string) {
	state := ""
	for deadline := time.Now().Add(d); time.Now().Before(deadline); <-time.After(5 * time.Millisecond) {
		cur := &unstructured.Unstructured{}
		cur.SetGroupVersionKind(cl.Manifests.Find("ValidatingWebhookConfiguration", "precedent").GroupVersionKind())
		if err := cl.Admin.Get(ctx, client.ObjectKey{Name: "precedent"}, cur); err != nil {
			state = err.Error()
			continue
		}
		if state = missingCABundle(cur); state == "" {
			return time.Now(), ""
		}
	}
	return time.Time{}, state
}

// missingCABundle names the first webhook of the configuration without a caBundle ("" if none).
func missingCABundle(cfg *unstructured.Unstructured) string {
	hooks, _, _ := unstructured.NestedSlice(cfg.Object, "webhooks")
	for _, h := range hooks {
		m, _ := h.(map[string]interface{})
		if b, _, _ := unstructured.NestedString(m, "clientConfig", "caBundle"); b == "" {
			return fmt.Sprintf("webhook %v without caBundle", m["name"])
		}
	}
	return ""
}

// lastFailure says when the last failed write of w started, after from.
func lastFailure(w Window, from time.Time) string {
	if len(w.Failed) == 0 {
		return ""
	}
	last := w.Failed[0].Start
	for _, op := range w.Failed {
		if op.Start.After(last) {
			last = op.Start
		}
	}
	return fmt.Sprintf("\n  the failed writes started between %s and %s after the replace", w.Failed[0].Start.Sub(from).Round(time.Millisecond), last.Sub(from).Round(time.Millisecond))
}

// caBundleKept is (d2): the replace of (d) with config/keep-cabundle installed (KeepCABundle), in
// either certificate mode (in cert-manager mode the cainjector would restore the caBundle, and the
// same window opens). The API server itself copies each webhook's caBundle from the stored
// configuration into the replacing one that lacks it, so the configuration never loses it: the
// replace's own response carries it, and no write fails.
func caBundleKept(t *testing.T, load *Load) {
	ctx := context.Background()
	remove, err := KeepCABundle(ctx, cl.Admin, cl.Manifests, cl.Builtin)
	if err != nil {
		if remove != nil {
			_ = remove()
		}
		t.Fatal(err)
	}
	defer func() {
		if err := remove(); err != nil {
			t.Error(err)
		}
	}()
	// The policy is in force once the API server's policy informer has it: a dry-run replace shows it.
	harness.Eventually(t, "a dry-run replace keeps the caBundle", func() (bool, string) {
		got, err := dryRunReplace(ctx)
		if err != nil {
			return false, err.Error()
		}
		s := missingCABundle(got)
		return s == "", s
	})
	probes := startProbes(ctx, 4)
	from, replaced := replaceValidating(ctx, t)
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(cl.Manifests.Find("ValidatingWebhookConfiguration", "precedent").GroupVersionKind())
	if err := cl.Admin.Get(ctx, client.ObjectKey{Name: "precedent"}, cur); err != nil {
		t.Fatal(err)
	}
	if s := missingCABundle(cur); s != "" {
		t.Errorf("(d2) right after the replace: %s", s)
	}
	await(t, replaced.Add(200*time.Millisecond), "the probes after the replace")
	probed := probes()
	await(t, replaced.Add(2*time.Second), "two seconds of writes after the replace")
	w := load.Between(from, time.Now())
	t.Logf("(d2) the same replace with config/keep-cabundle's MutatingAdmissionPolicy: caBundle never lost; writes from the replace to 2 s after it: %s; probed by 4 clients around it: %s", w.Summary(), probed.describe(from))
	if len(w.Failed) > 0 || len(probed.failed) > 0 {
		t.Errorf("(d2) %d writes and %d probes failed although the configuration kept its caBundle", len(w.Failed), len(probed.failed))
	}
}

// dryRunReplace is a server-side dry-run of the replace: the configuration as the API server would
// store it.
func dryRunReplace(ctx context.Context) (*unstructured.Unstructured, error) {
	rendered := cl.Manifests.Find("ValidatingWebhookConfiguration", "precedent")
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(rendered.GroupVersionKind())
	if err := cl.Admin.Get(ctx, client.ObjectKey{Name: "precedent"}, cur); err != nil {
		return nil, err
	}
	replaced := rendered.DeepCopy()
	replaced.SetResourceVersion(cur.GetResourceVersion())
	if err := cl.Admin.Update(ctx, replaced, client.DryRunAll); err != nil {
		return nil, err
	}
	return replaced, nil
}

// probed is what startProbes saw: how many probes, and when each that failed started.
type probed struct {
	n      int
	failed []time.Time
	first  string // the first failure's error
}

// startProbes sends the webhook's probe (a write it must deny) from n clients back to back until the
// returned function is called, which returns what they saw: a failed probe is the API server calling
// the webhook without a CA to trust, the window a replace without caBundle opens.
func startProbes(ctx context.Context, n int) func() probed {
	var mu sync.Mutex
	var got probed
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				start := time.Now()
				denied, why := harness.Denied(ctx, cl.Admin, harness.Probe)
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				got.n++
				if !denied {
					if len(got.failed) == 0 {
						got.first = why
					}
					got.failed = append(got.failed, start)
				}
				mu.Unlock()
			}
		}()
	}
	return func() probed {
		cancel()
		wg.Wait()
		slices.SortFunc(got.failed, time.Time.Compare)
		return got
	}
}

func (p probed) describe(from time.Time) string {
	if len(p.failed) == 0 {
		return fmt.Sprintf("%d probes, none failed", p.n)
	}
	first, last := p.failed[0].Sub(from), p.failed[len(p.failed)-1].Sub(from)
	return fmt.Sprintf("%d probes, %d failed, started %s to %s after the replace; the first: %s", p.n, len(p.failed), first.Round(100*time.Microsecond), last.Round(100*time.Microsecond), p.first)
}
