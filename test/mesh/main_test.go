// Package mesh_test drives the MeshTimeout and MeshTrafficPermission admission path through a real
// kube-apiserver and etcd (the pinned binaries of `make control-plane`): one control plane for the
// package, started in TestMain with the shipped CRDs (Dataplane included), the webhooks served over
// TLS with a dev certificate; each test works in its own namespace and its own mesh, named after it.
package mesh_test

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
	"github.com/google/go-cmp/cmp"
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
	env  *controlplane.Env
	live *config.Live
	root = filepath.Join("..", "..")
)

// probe is rejected by the validating webhook only (the AccessPolicy schema allows a Service
// target; the mesh CRDs' schemas catch everything the webhook would): once a dry-run of it is denied,
// the API server calls the webhook that also serves the mesh kinds.
const probe = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: probe, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: probe}]
  rules: [{name: r, source: {type: ServiceAccount, serviceAccount: {name: a}}}]`

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
	c, _ := newClient()
	if err := env.RegisterWebhooks(ctx, c, config.Defaults().Registry().Kinds()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = env.WaitWebhooksCalled(ctx, func(ctx context.Context) bool {
		err := c.Create(ctx, object(probe), client.DryRunAll)
		return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "denied the request")
	})
	if err != nil {
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

// createAll creates the documents of docs (separated by ---) in ns, failing the test on error.
func createAll(t *testing.T, c client.Client, ns, docs string) {
	t.Helper()
	for _, doc := range strings.Split(docs, "\n---\n") {
		o := objectIn(ns, doc)
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

// schemaStopped is the cause the API server adds when schema errors keep it from running the CEL rules.
var schemaStopped = cause{metav1.CauseTypeFieldValueInvalid, "<nil>"}

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

func errString(err error) string {
	if err == nil {
		return "admitted"
	}
	return err.Error()
}

// rejection is what a rejected write must come back with: the Invalid status, one cause per field,
// a message that says what is wrong, and who rejected it: the webhook, or the CRD schema before it.
type rejection struct {
	causes  []cause
	message string
	webhook bool
}

// deniedByWebhook starts the message of a rejection by Precedent's validating webhook.
const deniedByWebhook = `admission webhook "policies.precedent.dev" denied the request`

// assertRejected creates obj with a server-side dry-run and for real, asserts the same rejection
// both times, and that nothing was persisted. It polls the dry-run until the rejection appears,
// since the webhook's cache and settings follow the test's writes.
func assertRejected(t *testing.T, c client.Client, obj *unstructured.Unstructured, want rejection) {
	t.Helper()
	ctx := context.Background()
	write := func(dry bool) error {
		var opts []client.CreateOption
		if dry {
			opts = append(opts, client.DryRunAll)
		}
		return c.Create(ctx, obj.DeepCopy(), opts...)
	}
	check := func(err error) (bool, string) {
		got, msg, ok := causes(err)
		if !ok {
			return false, "not an Invalid status: " + errString(err)
		}
		if diff := cmp.Diff(want.causes, got); diff != "" {
			return false, "causes (-want +got):\n" + diff + "\nmessage: " + msg
		}
		if !strings.Contains(msg, want.message) {
			return false, "message " + msg + " lacks " + want.message
		}
		if strings.Contains(msg, deniedByWebhook) != want.webhook {
			return false, fmt.Sprintf("message %s: rejected by the webhook = %t, want %t", msg, !want.webhook, want.webhook)
		}
		return true, ""
	}
	eventually(t, 10*time.Second, func() (bool, string) { return check(write(true)) })
	if ok, state := check(write(false)); !ok {
		t.Fatalf("real write: %s", state)
	}
	assertAbsent(t, c, obj)
}

// assertAbsent fails the test if obj exists.
func assertAbsent(t *testing.T, c client.Client, obj *unstructured.Unstructured) {
	t.Helper()
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(obj.GroupVersionKind())
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), cur); !apierrors.IsNotFound(err) {
		t.Fatalf("%s %s/%s persisted (get: %v)", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
}

// warningsOf creates obj with a server-side dry-run until its warnings equal want (the webhook's
// cache follows the test's objects), asserts the dry-run persisted nothing, then creates it for real
// and asserts the same warnings.
func warningsOf(t *testing.T, c client.Client, rec *recorder, obj *unstructured.Unstructured, want []string) {
	t.Helper()
	ctx := context.Background()
	rec.take()
	eventually(t, 10*time.Second, func() (bool, string) {
		err := c.Create(ctx, obj.DeepCopy(), client.DryRunAll)
		got := rec.take()
		if err != nil {
			return false, "dry-run rejected: " + err.Error()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return false, "dry-run warnings (-want +got):\n" + diff
		}
		return true, ""
	})
	assertAbsent(t, c, obj)
	if err := c.Create(ctx, obj.DeepCopy()); err != nil {
		t.Fatalf("create rejected: %v", err)
	}
	if diff := cmp.Diff(want, rec.take()); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
}

// setConfig creates or replaces the PrecedentConfig cluster with spec and waits until the webhook's
// settings come from that very write, so the next admission obeys it.
func setConfig(t *testing.T, c client.Client, spec map[string]interface{}) {
	t.Helper()
	ctx := context.Background()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(config.GVK)
	u.SetName(config.Name)
	u.Object["spec"] = spec
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(config.GVK)
	err := c.Get(ctx, client.ObjectKey{Name: config.Name}, cur)
	switch {
	case apierrors.IsNotFound(err):
		err = c.Create(ctx, u)
	case err == nil:
		u.SetResourceVersion(cur.GetResourceVersion())
		err = c.Update(ctx, u)
	}
	if err != nil {
		t.Fatalf("writing PrecedentConfig: %v", err)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		return live.ResourceVersion() == u.GetResourceVersion(), fmt.Sprintf("settings from resourceVersion %q, want %q", live.ResourceVersion(), u.GetResourceVersion())
	})
}
