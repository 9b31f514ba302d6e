// Package certs_test checks the built-in certificate mode against a real kube-apiserver: the CA it
// keeps in a Secret is injected into the webhook configurations and the API server trusts the
// webhook server with it, across a rotation and with two replicas racing to bootstrap.
package certs_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/precedent-dev/precedent/certs"
	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/test/harness"
	"github.com/precedent-dev/precedent/webhook"
)

var (
	// h is the package's control plane; the test runs its own webhook server on it.
	h *harness.Harness
	c client.Client
)

func TestMain(m *testing.M) {
	var err error
	if h, err = harness.Start(harness.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, _ = h.Client()
	os.Exit(h.Run(m))
}

func bootstrap(dir string) *certs.Bootstrap {
	return &certs.Bootstrap{
		Client: c, Secret: types.NamespacedName{Namespace: "default", Name: "precedent-webhook-tls"},
		DNSNames: []string{"localhost"}, CertDir: dir,
		Mutating: webhook.ConfigurationName, Validating: webhook.ConfigurationName, Log: logr.Discard(),
	}
}

func TestBootstrapInjectRotate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()

	// Webhook configurations with no caBundle, pointing at https://localhost:<port>.
	kinds := config.Defaults().Registry().Kinds()
	m, v := webhook.Configurations(kinds, webhook.URLClientConfig(fmt.Sprintf("https://localhost:%d", h.Env.Port), nil))
	for _, o := range []client.Object{m, v} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	// Two replicas race to bootstrap from nothing: they must end with one certificate.
	a, b := bootstrap(filepath.Join(dir, "a")), bootstrap(filepath.Join(dir, "b"))
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, bs := range []*certs.Bootstrap{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = bs.Ensure(ctx) }()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("Ensure: %v, %v", errs[0], errs[1])
	}
	certA, _ := os.ReadFile(filepath.Join(a.CertDir, certs.CertName))
	certB, _ := os.ReadFile(filepath.Join(b.CertDir, certs.CertName))
	if len(certA) == 0 || !bytes.Equal(certA, certB) {
		t.Fatalf("the two replicas wrote different serving certificates")
	}

	// A webhook server on replica a's files: the API server must trust it through the injected CA.
	mgr, err := ctrl.New(h.Env.Config, ctrl.Options{
		Scheme: c.Scheme(), Logger: logr.Discard(), Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: h.Env.Port, CertDir: a.CertDir}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := webhook.Register(ctx, mgr, config.NewLive(config.Defaults(), logr.Discard()), logr.Discard()); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	harness.Eventually(t, "the API server calls the webhook over TLS", func() (bool, string) { return harness.Denied(ctx, c, harness.Probe) })

	// Rotation: 70 days later the serving certificate (90 days, renewed 30 days before) is renewed,
	// signed by the same CA, so the API server keeps trusting the server without a new caBundle.
	sec := &corev1.Secret{}
	if err := c.Get(ctx, a.Secret, sec); err != nil {
		t.Fatal(err)
	}
	before := sec.Data[corev1.TLSCertKey]
	a.Now = func() time.Time { return time.Now().Add(70 * 24 * time.Hour) }
	if err := a.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, a.Secret, sec); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(before, sec.Data[corev1.TLSCertKey]) {
		t.Fatal("the serving certificate was not rotated")
	}
	onDisk, _ := os.ReadFile(filepath.Join(a.CertDir, certs.CertName))
	if !bytes.Equal(onDisk, sec.Data[corev1.TLSCertKey]) {
		t.Fatal("the rotated certificate was not written for the webhook server")
	}
	harness.Eventually(t, "the API server still calls the webhook after rotation", func() (bool, string) { return harness.Denied(ctx, c, harness.Probe) })

	// Replica b picks the rotated certificate up on its next check instead of issuing its own.
	if err := b.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	certB, _ = os.ReadFile(filepath.Join(b.CertDir, certs.CertName))
	if !bytes.Equal(certB, sec.Data[corev1.TLSCertKey]) {
		t.Fatal("replica b did not converge on the rotated certificate")
	}
	_ = c.Delete(ctx, m)
	_ = c.Delete(ctx, v)
	_ = c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: a.Secret.Namespace, Name: a.Secret.Name}})
}
