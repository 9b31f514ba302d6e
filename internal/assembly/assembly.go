package assembly

import (
	"context"
	"crypto/tls"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/precedent-dev/precedent/internal/buildinfo"
	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/reconcile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/profiles"
	"github.com/precedent-dev/precedent/webhook"
)

// Options say what the manager runs and where it listens. The zero value of a duration means its
// default (the Default* constants).
type Options struct {
	// Config reaches the API server.
	Config *rest.Config
	// Logger is the manager's logger; its children are named for the parts (webhook, reconcile, …).
	Logger logr.Logger

	// Webhooks serves the admission handlers on the webhook server (Host:Port, TLS 1.2 or later).
	Webhooks bool
	Host     string
	Port     int
	// CertDir holds tls.crt and tls.key, reloaded when they change; unused with GetCertificate.
	CertDir string
	// GetCertificate, when set, supplies the serving certificate instead of CertDir (the built-in
	// certificate mode serves it from memory).
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// WrapWebhookServer, when set, wraps the webhook server before the handlers are registered on it
	// (a benchmark counts the calls this way).
	WrapWebhookServer func(ctrlwebhook.Server) ctrlwebhook.Server

	// Reconciler runs the status reconciler on the state the webhooks read, on the leader only.
	Reconciler bool
	// LeaderElection elects a leader among replicas through a Lease in LeaderElectionNamespace
	// (empty: the pod's own namespace): the leader runs the status reconciler while it holds the
	// lease, and a replica that loses it stops only the reconciler and campaigns again. The
	// webhooks serve on every replica, leader or not, from informers that run throughout.
	LeaderElection          bool
	LeaderElectionNamespace string
	LeaseDuration           time.Duration
	RenewDeadline           time.Duration
	RetryPeriod             time.Duration

	// MetricsAddr is the address of /metrics ("0" or empty disables it); MetricsSecure serves it over HTTPS to
	// clients the API server authenticates and authorizes (get on the non-resource URL /metrics).
	MetricsAddr   string
	MetricsSecure bool
	// ProbeAddr is the address of /healthz and /readyz ("0" or empty disables it).
	ProbeAddr string

	// InstallRetry is how often the managed kinds whose CRD is not installed are looked for again.
	InstallRetry time.Duration
	// GracefulShutdown bounds how long the manager waits, once its context ends, for admissions in
	// flight.
	GracefulShutdown time.Duration

	// OnSettings, when set, is called with the settings each time they change, just before they are
	// in force (liveconfig.Live.OnChange).
	OnSettings func(settings.Settings)
	// OnReady, when set, is called once the cache is synced, the state built and (with Webhooks) the
	// webhook server serves.
	OnReady func()
}

// Defaults of Options' durations.
const (
	// A leader killed without releasing the lease is replaced within LeaseDuration plus one
	// RetryPeriod (about 12 s instead of controller-runtime's 15 s + 2 s), so the status changes made
	// meanwhile converge within 20 s of the kill (test/deploy, scenario e).
	DefaultLeaseDuration = 10 * time.Second
	DefaultRenewDeadline = 7 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	// DefaultInstallRetry is how often a managed kind whose CRD is missing is looked for again.
	DefaultInstallRetry = 30 * time.Second
	// DefaultGracefulShutdown stays under the pod's terminationGracePeriodSeconds.
	DefaultGracefulShutdown = 15 * time.Second
)

// LeaderElectionID names the Lease the replicas compete for.
const LeaderElectionID = "precedent.policy.precedent.dev"

// Assembly is the manager with everything added, and the parts a front door may still need.
type Assembly struct {
	Manager manager.Manager
	// Live holds the settings in force, followed from the PrecedentConfig.
	Live *liveconfig.Live
	// State is the informer state the webhooks and the reconciler read.
	State *state.State

	webhooks    bool
	log         logr.Logger
	controllers *reconcile.Controllers // with Options.Reconciler
	leading     atomic.Bool
}

// New builds the manager o describes, with the profiles' models installed (profiles.Install) and
// the settings, the state, the webhook handlers and the reconciler added. ctx bounds the watches
// New starts; run the manager with Manager.Start(ctx).
func New(ctx context.Context, o Options) (*Assembly, error) {
	profiles.Install()
	o = o.withDefaults()
	log := o.Logger
	if err := buildinfo.Register(ctrlmetrics.Registry); err != nil {
		return nil, fmt.Errorf("registering precedent_build_info: %w", err)
	}
	mo, err := managerOptions(o)
	if err != nil {
		return nil, err
	}
	mgr, err := manager.New(o.Config, mo)
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	a := &Assembly{Manager: mgr, Live: liveconfig.NewLive(settings.Defaults(), log.WithName("settings")), webhooks: o.Webhooks, log: log}
	if a.State, err = webhook.Register(ctx, mgr, a.Live, webhook.Options{InstallRetry: o.InstallRetry, Handlers: o.Webhooks}, log.WithName("webhook")); err != nil {
		return nil, err
	}
	if o.OnSettings != nil {
		a.Live.OnChange(o.OnSettings)
	}
	if o.Reconciler {
		if err := a.reconciler(o); err != nil {
			return nil, err
		}
	}
	if err := a.checks(o.OnReady); err != nil {
		return nil, err
	}
	return a, nil
}

// withDefaults fills the zero durations.
func (o Options) withDefaults() Options {
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&o.LeaseDuration, DefaultLeaseDuration}, {&o.RenewDeadline, DefaultRenewDeadline}, {&o.RetryPeriod, DefaultRetryPeriod},
		{&o.InstallRetry, DefaultInstallRetry}, {&o.GracefulShutdown, DefaultGracefulShutdown},
	} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if o.MetricsAddr == "" {
		o.MetricsAddr = "0" // controller-runtime would take :8080
	}
	return o
}

// managerOptions are the manager's options for o (defaults filled).
func managerOptions(o Options) (manager.Options, error) {
	scheme, err := state.NewScheme()
	if err != nil {
		return manager.Options{}, err
	}
	metrics := metricsserver.Options{BindAddress: o.MetricsAddr}
	if o.MetricsSecure {
		metrics.SecureServing = true
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
		metrics.TLSOpts = []func(*tls.Config){tls12}
	}
	mo := manager.Options{
		Scheme:                 scheme,
		Logger:                 o.Logger,
		Cache:                  cache.Options{DefaultTransform: cache.TransformStripManagedFields()},
		Metrics:                metrics,
		HealthProbeBindAddress: o.ProbeAddr,
		// No leader election for the manager: a lost lease would stop it, and with it the informers
		// and the webhooks. The reconciler has an election of its own (Assembly.reconciler).
		// Once the context ends the webhook server stops last: it closes its listener and lets the
		// admissions in flight finish, within this bound.
		GracefulShutdownTimeout: ptr.To(o.GracefulShutdown),
	}
	if o.Webhooks {
		tlsOpts := []func(*tls.Config){tls12}
		if o.GetCertificate != nil {
			get := o.GetCertificate
			tlsOpts = append(tlsOpts, func(c *tls.Config) { c.GetCertificate = get })
		}
		srv := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: o.Host, Port: o.Port, CertDir: o.CertDir, TLSOpts: tlsOpts})
		if o.WrapWebhookServer != nil {
			srv = o.WrapWebhookServer(srv)
		}
		mo.WebhookServer = srv
	}
	return mo, nil
}

func tls12(c *tls.Config) { c.MinVersion = tls.VersionTLS12 }

// checks adds /healthz, the webhook server's readiness and the OnReady notice.
func (a *Assembly) checks(onReady func()) error {
	mgr := a.Manager
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if a.webhooks {
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return err
		}
	}
	if onReady == nil {
		return nil
	}
	return mgr.Add(webhook.EveryReplica(func(ctx context.Context) error {
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			return nil
		}
		for !a.Ready() {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(20 * time.Millisecond):
			}
		}
		onReady()
		<-ctx.Done()
		return nil
	}))
}

// reconciler runs the status reconciler: with leader election, in the terms the replica holds the
// lease; without, for as long as the manager runs.
func (a *Assembly) reconciler(o Options) error {
	var err error
	if a.controllers, err = reconcile.NewControllers(a.State, a.Live, o.InstallRetry, a.log.WithName("reconcile")); err != nil {
		return err
	}
	if !o.LeaderElection {
		return a.Manager.Add(webhook.EveryReplica(func(ctx context.Context) error {
			a.leading.Store(true)
			defer a.leading.Store(false)
			return a.runTerm(ctx)
		}))
	}
	e, err := a.newElection(o)
	if err != nil {
		return err
	}
	return a.Manager.Add(webhook.EveryReplica(e.run))
}

// Leading reports whether the status reconciler runs here (this replica holds the lease, or runs
// without leader election).
func (a *Assembly) Leading() bool { return a.leading.Load() }

// Ready reports whether the state is synced and, with webhooks, the webhook server serves.
func (a *Assembly) Ready() bool {
	if !a.State.Synced() {
		return false
	}
	return !a.webhooks || a.Manager.GetWebhookServer().StartedChecker()(nil) == nil
}
