package deploy

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestCertManagerMode installs config/default (cert-manager mode: the test is cert-manager with a
// CA Issuer) and runs two replicas under the write stream through a rollout, a certificate renewal
// and crashes.
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

	load, _ := startLoad(t)

	t.Run("a rolling restart", func(t *testing.T) {
		from := time.Now()
		if err := cl.RollingRestart(ctx); err != nil {
			t.Fatal(err)
		}
		w := load.Between(from, time.Now())
		t.Logf("(a) rolling restart of 2 replicas: %s", w.Summary())
		assertRate(t, w)
		if len(w.Failed) > 0 {
			t.Errorf("(a) %d writes failed during the rolling restart", len(w.Failed))
		}
	})
}

// assertRate fails the test if the stream fell under 50 writes/s in w.
func assertRate(t *testing.T, w Window) {
	t.Helper()
	if w.Rate() < 50 {
		t.Errorf("the write stream ran at %.1f writes/s, under 50", w.Rate())
	}
}
