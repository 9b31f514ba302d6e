package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/precedent-dev/precedent/internal/assembly"
	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
)

// root is the module root as seen from a suite's folder (test/<suite>), where go test runs it.
var root = filepath.Join("..", "..")

// Options say what runs beside the control plane.
type Options struct {
	// CRDDirs are folders of extra CRDs, relative to the suite's folder, installed after the
	// Gateway API and Precedent CRDs.
	CRDDirs []string
	// Webhooks runs Precedent's webhooks in a manager, registers them in the API server and waits
	// until the API server calls them.
	Webhooks bool
	// Probe is the document whose server-side dry-run only the validating webhook rejects; Start
	// waits for that rejection. Empty means the package's Probe.
	Probe string
	// Reconciler runs the status reconciler in the manager, on the state the webhooks read.
	Reconciler bool
	// LeaseDuration, RenewDeadline and RetryPeriod time the leader election (zero: serve's); a
	// suite that takes the lease away shortens them.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// Harness is a running control plane and, with Webhooks or Reconciler, Precedent's manager on it.
type Harness struct {
	// Env is the control plane: its admin configuration and the webhook server's port and
	// certificate.
	Env *controlplane.Env
	// Live holds the settings the manager follows (nil when no manager runs).
	Live *liveconfig.Live
	// Kubeconfig is the path of an admin kubeconfig for tools such as kubectl.
	Kubeconfig string
	// State is the informer state the webhooks read (nil when no manager runs): a test waits on it
	// until an event has reached the webhooks (AwaitCaught).
	State *state.State
	// Assembly is the manager and its parts (nil when no manager runs).
	Assembly *assembly.Assembly

	client client.Client
	rec    *Recorder
	dir    string
	cancel context.CancelFunc
	done   <-chan struct{}
}

// Start starts the control plane with the CRDs and what o asks for. A suite calls it once, from
// TestMain, and shares the Harness between its tests.
func Start(o Options) (*Harness, error) {
	start := time.Now()
	ctrllog.SetLogger(logr.Discard())
	env, err := controlplane.Start(controlplane.Options{
		AssetsDir: filepath.Join(root, "bin", "control-plane"),
		CRDDirs:   append([]string{filepath.Join(root, "config", "crd", "gateway-api"), filepath.Join(root, "config", "crd")}, o.CRDDirs...),
	})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	h := &Harness{Env: env}
	if err := h.start(o); err != nil {
		_ = h.Stop()
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "control plane ready in %s\n", time.Since(start).Round(time.Millisecond))
	return h, nil
}

func (h *Harness) start(o Options) error {
	var err error
	if h.client, h.rec, err = h.newClient(); err != nil {
		return err
	}
	if err := h.writeKubeconfig(); err != nil {
		return err
	}
	if !o.Webhooks && !o.Reconciler {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	if err := h.startManager(ctx, o); err != nil {
		return err
	}
	if !o.Webhooks {
		return nil
	}
	if err := h.Env.RegisterWebhooks(ctx, h.client, settings.Defaults().Registry().Kinds()); err != nil {
		return err
	}
	probe := o.Probe
	if probe == "" {
		probe = Probe
	}
	err = h.Env.WaitWebhooksCalled(ctx, func(ctx context.Context) bool {
		denied, _ := Denied(ctx, h.client, probe)
		return denied
	})
	if err != nil {
		return fmt.Errorf("the API server does not call the webhooks: %w", err)
	}
	return nil
}

// writeKubeconfig writes the kubeconfig of a new admin user into a temporary folder.
func (h *Harness) writeKubeconfig() error {
	kc, _, err := h.Env.AddAdmin("tester")
	if err != nil {
		return err
	}
	if h.dir, err = os.MkdirTemp("", "precedent-test-"); err != nil {
		return err
	}
	h.Kubeconfig = filepath.Join(h.dir, "kubeconfig")
	if err := os.WriteFile(h.Kubeconfig, kc, 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return nil
}

// startManager runs Precedent's manager as serve assembles it (package assembly: the same cache
// transform, TLS minimum and leader election), with the webhook handlers on the dev certificate and
// the status reconciler as o asks, until ctx ends, and waits until its cache is synced and its
// webhook server (if any) started. Two things differ from serve, both options: a managed kind whose CRD a test
// installs is looked for every second instead of every thirty, and the Lease lives in the default
// namespace (there is no pod namespace to default to); a suite may also shorten the lease timings.
func (h *Harness) startManager(ctx context.Context, o Options) error {
	a, err := assembly.New(ctx, assembly.Options{
		Config: h.Env.Config, Logger: logr.Discard(),
		Webhooks: o.Webhooks, Host: "127.0.0.1", Port: h.Env.Port, CertDir: h.Env.CertDir,
		Reconciler: o.Reconciler, LeaderElection: true, LeaderElectionNamespace: metav1.NamespaceDefault,
		MetricsAddr: "0", InstallRetry: time.Second,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod,
	})
	if err != nil {
		return err
	}
	h.Live, h.State, h.Assembly = a.Live, a.State, a
	done := make(chan struct{})
	h.done = done
	go func() {
		defer close(done)
		if err := a.Manager.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return a.Ready(), nil
	})
	if err != nil {
		return fmt.Errorf("the manager did not become ready: %w", err)
	}
	return nil
}

// Running reports whether the manager still runs (Start has not returned).
func (h *Harness) Running() bool {
	if h.done == nil {
		return false
	}
	select {
	case <-h.done:
		return false
	default:
		return true
	}
}

// Run runs the suite's tests, then stops the harness, and returns the code to exit with.
func (h *Harness) Run(m *testing.M) int {
	code := m.Run()
	if err := h.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
	}
	return code
}

// Stop stops the manager, removes the kubeconfig and stops the control plane.
func (h *Harness) Stop() error {
	if h.cancel != nil {
		h.cancel()
	}
	if h.done != nil {
		<-h.done
	}
	if h.dir != "" {
		_ = os.RemoveAll(h.dir)
	}
	return h.Env.Stop()
}
