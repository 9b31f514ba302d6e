package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/precedent-dev/precedent/certs"
	"github.com/precedent-dev/precedent/internal/assembly"
	"github.com/precedent-dev/precedent/internal/buildinfo"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/webhook"
)

func init() { subcommands = append(subcommands, newServeCmd) }

// serveOptions are the flags of serve (dev sets them itself).
type serveOptions struct {
	host, certDir          string
	port                   int
	metricsAddr, probeAddr string
	// metricsSecure serves /metrics over HTTPS, to clients the API server authenticates (TokenReview)
	// and authorizes (SubjectAccessReview: get on the non-resource URL /metrics).
	metricsSecure           bool
	leaderElect             bool
	leaderElectionNamespace string
	verbosity               int
	kubeconfig              string
	// certSecret (namespace/name), when set, selects the built-in certificate mode.
	certSecret string
	serviceDNS []string
	onReady    func() // called once the webhook server serves and the cache is synced
	// onSettings, when set, is called with the settings each time they change, as liveconfig.Live.OnChange
	// calls its listeners: just before they are in force.
	onSettings func(settings.Settings)
	logger     logr.Logger
}

func newServeCmd() *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:         "serve",
		Annotations: map[string]string{stopsItself: "true"},
		Short:       "Serve the admission webhooks (TLS) with health, readiness and Prometheus metrics endpoints",
		Long: `Runs a controller-runtime manager: the validating and mutating webhooks of every managed kind and of
PrecedentConfig (TLS only, certificates from --cert-dir, reloaded when they rotate), an informer cache of
the Gateway API topology and the policies, /healthz and /readyz, and /metrics.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.logger = textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(o.verbosity)))
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return fmt.Errorf("loading the kubeconfig: %w", err)
			}
			return serve(ctrl.SetupSignalHandler(), cfg, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.host, "webhook-host", "", "address the webhook server binds (empty: all)")
	f.IntVar(&o.port, "webhook-port", 9443, "port of the webhook server (TLS)")
	f.StringVar(&o.certDir, "cert-dir", "/tmp/k8s-webhook-server/serving-certs", "folder holding tls.crt and tls.key (reloaded on change); unused with --cert-secret")
	f.StringVar(&o.certSecret, "cert-secret", "", `built-in certificate mode, without cert-manager: NAMESPACE/NAME of the Secret that keeps the CA and the serving certificate (created if absent, watched, served from memory); the CA bundle is injected into the webhook configurations and re-injected when one loses it, and the CA and the certificate are rotated before expiry, old and new CA trusted together`)
	f.StringSliceVar(&o.serviceDNS, "service-dns", []string{"precedent-webhook.precedent-system.svc"}, "DNS names of the webhook Service, for the built-in certificate mode")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", `address of /metrics ("0" disables it)`)
	f.BoolVar(&o.metricsSecure, "metrics-secure", false, "serve /metrics over HTTPS (self-signed) to authenticated clients allowed to get /metrics (the shipped manifests turn it on, on :8443)")
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "elect a leader among replicas (for the status reconciler; webhooks serve on every replica)")
	f.StringVar(&o.leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (default: the pod's)")
	f.IntVarP(&o.verbosity, "v", "v", 0, "log verbosity (1 logs every admission)")
	return cmd
}

// serve runs the manager until ctx ends.
func serve(ctx context.Context, cfg *rest.Config, o *serveOptions) error {
	log := o.logger
	ctrl.SetLogger(log)
	bi := buildinfo.Get()
	log.Info("precedent", "version", bi.Version, "commit", bi.Commit, "go", bi.Go, "platform", bi.Platform)
	ao := assembly.Options{
		Config: cfg, Logger: log,
		Webhooks: true, Host: o.host, Port: o.port, CertDir: o.certDir,
		Reconciler: true, LeaderElection: o.leaderElect, LeaderElectionNamespace: o.leaderElectionNamespace,
		MetricsAddr: o.metricsAddr, MetricsSecure: o.metricsSecure, ProbeAddr: o.probeAddr,
		OnSettings: o.onSettings, OnReady: o.onReady,
	}
	// Without the Gateway API CRDs the cache would wait forever: say which are missing, and stop.
	if err := checkGatewayAPI(cfg); err != nil {
		return err
	}
	var builtin *certs.Builtin
	if o.certSecret != "" {
		var err error
		if builtin, err = builtinCerts(cfg, o, log.WithName("certs")); err != nil {
			return err
		}
		// The pair comes from the Secret, in memory: --cert-dir is neither read nor written.
		ao.GetCertificate = builtin.GetCertificate
	}
	a, err := assembly.New(ctx, ao)
	if err != nil {
		return err
	}
	if builtin != nil {
		if err := a.Manager.Add(builtin); err != nil {
			return err
		}
	}
	log.Info("starting", "webhookPort", o.port, "certDir", o.certDir, "settings", a.Live.Current().String())
	if err := a.Manager.Start(ctx); err != nil {
		return fmt.Errorf("running the manager: %w", err)
	}
	return nil
}

// builtinCerts sets up the built-in certificate mode: every replica watches the Secret and serves
// the pair it holds, and keeps the webhook configurations' caBundle and the rotation going.
func builtinCerts(cfg *rest.Config, o *serveOptions, log logr.Logger) (*certs.Builtin, error) {
	ns, name, ok := strings.Cut(o.certSecret, "/")
	if !ok || ns == "" || name == "" {
		return nil, fmt.Errorf("--cert-secret %q: want NAMESPACE/NAME", o.certSecret)
	}
	b := &certs.Builtin{
		Config: cfg, Secret: types.NamespacedName{Namespace: ns, Name: name}, Lifetimes: certs.DefaultLifetimes(o.serviceDNS),
		Mutating: webhook.ConfigurationName, Validating: webhook.ConfigurationName, Log: log,
	}
	return b, b.Init()
}
