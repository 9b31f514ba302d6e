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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/certs"
	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/controlplane"
	"github.com/precedent-dev/precedent/webhook"
)

var (
	env  *controlplane.Env
	c    client.Client
	root = filepath.Join("..", "..")
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	var err error
	env, err = controlplane.Start(controlplane.Options{
		AssetsDir: filepath.Join(root, "bin", "control-plane"),
		CRDDirs:   []string{filepath.Join(root, "config", "crd", "gateway-api"), filepath.Join(root, "config", "crd")},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the control plane:", err)
		return 1
	}
	defer env.Stop()
	scheme, err := webhook.NewScheme()
	if err == nil {
		c, err = client.New(env.Config, client.Options{Scheme: scheme})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func bootstrap(dir string) *certs.Bootstrap {
	return &certs.Bootstrap{
		Client: c, Secret: types.NamespacedName{Namespace: "default", Name: "precedent-webhook-tls"},
		DNSNames: []string{"localhost"}, CertDir: dir,
		Mutating: webhook.ConfigurationName, Validating: webhook.ConfigurationName, Log: logr.Discard(),
	}
}

// answers reports whether the API server reaches the webhook over TLS: a duplicate unset (which
// only the webhook sees) is denied by it, instead of failing the call.
func answers(ctx context.Context) (bool, string) {
	u := &unstructured.Unstructured{}
	_ = yaml.Unmarshal([]byte(`
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: probe, namespace: default}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: probe}
  unset: [a, a]`), &u.Object)
	err := c.Create(ctx, u, client.DryRunAll)
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "denied the request"), fmt.Sprint(err)
}

func TestBootstrapInjectRotate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()

	// Webhook configurations with no caBundle, pointing at https://localhost:<port>.
	kinds := config.Defaults().Registry().Kinds()
	m, v := webhook.Configurations(kinds, webhook.URLClientConfig(fmt.Sprintf("https://localhost:%d", env.Port), nil))
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
	mgr, err := ctrl.New(env.Config, ctrl.Options{
		Scheme: c.Scheme(), Logger: logr.Discard(), Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: env.Port, CertDir: a.CertDir}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := webhook.Register(ctx, mgr, config.NewLive(config.Defaults(), logr.Discard()), logr.Discard()); err != nil {
		t.Fatal(err)
	}
	go func() { _ = mgr.Start(ctx) }()
	eventually(t, "the API server calls the webhook over TLS", func() (bool, string) { return answers(ctx) })

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
	eventually(t, "the API server still calls the webhook after rotation", func() (bool, string) { return answers(ctx) })

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

func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		ok, state := cond()
		last = state
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not reached before the deadline; last state: %s", what, last)
	}
}
