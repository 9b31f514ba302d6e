// Package webhook_test drives Precedent's admission webhooks through a real kube-apiserver and etcd
// (the pinned binaries of `make control-plane`): one control plane for the package, started in
// TestMain, the webhooks served over TLS with a dev certificate and registered in the API server;
// each test works in its own namespace.
package webhook_test

import (
	"context"
	"errors"
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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/controlplane"
	"github.com/precedent-dev/precedent/webhook"
)

var (
	env        *controlplane.Env
	live       *config.Live
	admin      *rest.Config
	kubeconfig string
	root       = filepath.Join("..", "..")
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	start := time.Now()
	ctrllog.SetLogger(logr.Discard())
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done, err := startManager(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { cancel(); <-done }()

	kc, cfg, err := env.AddAdmin("tester")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	admin = cfg
	dir, err := os.MkdirTemp("", "precedent-webhook-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, _ := newClient()
	if err := env.RegisterWebhooks(ctx, c, config.Defaults().Registry().Kinds()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := env.WaitWebhooksCalled(ctx, func(ctx context.Context) bool { return webhookAnswers(ctx, c) }); err != nil {
		fmt.Fprintln(os.Stderr, "the API server does not call the webhooks:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "control plane, CRDs and webhooks ready in %s\n", time.Since(start).Round(time.Millisecond))
	return m.Run()
}

// startManager runs the manager with Precedent's handlers on the dev certificate, until ctx ends.
func startManager(ctx context.Context) (<-chan struct{}, error) {
	scheme, err := webhook.NewScheme()
	if err != nil {
		return nil, err
	}
	log := logr.Discard()
	mgr, err := ctrl.New(env.Config, ctrl.Options{
		Scheme:        scheme,
		Logger:        log,
		Metrics:       metricsserver.Options{BindAddress: "0"},
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: env.Port, CertDir: env.CertDir}),
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	live = config.NewLive(config.Defaults(), log)
	st, err := webhook.Register(ctx, mgr, live, log)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return st.Synced() && mgr.GetWebhookServer().StartedChecker()(nil) == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the manager did not become ready: %w", err)
	}
	return done, nil
}

// webhookAnswers reports whether a server-side dry-run of a policy with a duplicate unset is
// rejected by the validating webhook (the schema cannot see duplicates).
func webhookAnswers(ctx context.Context, c client.Client) bool {
	u := object(`
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: probe, namespace: default}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: probe}
  unset: [a, a]`)
	err := c.Create(ctx, u, client.DryRunAll)
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "denied the request")
}

// recorder collects the warnings the API server returns.
type recorder struct {
	mu sync.Mutex
	ws []string
}

func (r *recorder) HandleWarningHeader(_ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ws = append(r.ws, text)
}

// take returns and forgets the warnings seen so far.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ws := r.ws
	r.ws = nil
	return ws
}

// newClient returns an admin client and the recorder of its warnings.
func newClient() (client.Client, *recorder) {
	rec := &recorder{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = rec
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		panic(fmt.Sprintf("creating a client: %v", err)) // configuration from envtest: cannot fail
	}
	return c, rec
}

// namespace creates a namespace for one test and deletes it afterwards.
func namespace(t *testing.T, c client.Client) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "t-"}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating a namespace: %v", err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), ns) })
	return ns.Name
}

// object reads one YAML document.
func object(doc string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		panic(fmt.Sprintf("test fixture: %v", err))
	}
	return u
}

// objectIn reads one YAML document with {{ns}} replaced by ns.
func objectIn(ns, doc string) *unstructured.Unstructured {
	return object(strings.ReplaceAll(doc, "{{ns}}", ns))
}

// mustCreate creates objects, failing the test on error.
func mustCreate(t *testing.T, c client.Client, objs ...*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

// eventually polls cond every 50 ms until it returns true or the deadline passes, then fails with
// the last state cond described.
func eventually(t *testing.T, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not reached within %s; last state: %s", timeout, state)
		}
		<-time.After(50 * time.Millisecond)
	}
}

// cause is one field error of an Invalid status, as the API server returns it.
type cause struct {
	Type  metav1.CauseType
	Field string
}

// causes reads the status of an Invalid error: its causes and whole message.
func causes(err error) ([]cause, string, bool) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Reason != metav1.StatusReasonInvalid || se.ErrStatus.Details == nil {
		return nil, "", false
	}
	var out []cause
	for _, c := range se.ErrStatus.Details.Causes {
		out = append(out, cause{Type: c.Type, Field: c.Field})
	}
	return out, se.ErrStatus.Message, true
}
