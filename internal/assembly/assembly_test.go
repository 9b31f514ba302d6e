package assembly

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// shape is what a manager's options say about the parts Options choose.
type shape struct {
	StripsManagedFields bool
	// LeaderElection stays off: a lost lease would stop the manager, informers and webhooks with it
	// (the status reconciler has an election of its own).
	LeaderElection   bool
	GracefulShutdown time.Duration
	MetricsAddr      string
	MetricsSecure    bool
	MetricsMinTLS    uint16
	Webhook          *webhookShape
}

type webhookShape struct {
	Host              string
	Port              int
	CertDir           string
	MinTLS            uint16
	ServesCertificate bool
}

func shapeOf(t *testing.T, mo manager.Options) shape {
	t.Helper()
	s := shape{
		StripsManagedFields: mo.Cache.DefaultTransform != nil, LeaderElection: mo.LeaderElection,
		GracefulShutdown: *mo.GracefulShutdownTimeout, MetricsAddr: mo.Metrics.BindAddress, MetricsSecure: mo.Metrics.SecureServing,
	}
	for _, f := range mo.Metrics.TLSOpts {
		c := &tls.Config{}
		f(c)
		s.MetricsMinTLS = c.MinVersion
	}
	if mo.WebhookServer == nil {
		return s
	}
	srv, ok := mo.WebhookServer.(*ctrlwebhook.DefaultServer)
	if !ok {
		t.Fatalf("webhook server %T, want controller-runtime's", mo.WebhookServer)
	}
	c := &tls.Config{}
	for _, f := range srv.Options.TLSOpts {
		f(c)
	}
	s.Webhook = &webhookShape{Host: srv.Options.Host, Port: srv.Options.Port, CertDir: srv.Options.CertDir,
		MinTLS: c.MinVersion, ServesCertificate: c.GetCertificate != nil}
	return s
}

func TestManagerOptions(t *testing.T) {
	get := func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return nil, nil }
	defaults := shape{
		StripsManagedFields: true, GracefulShutdown: DefaultGracefulShutdown, MetricsAddr: "0",
	}
	with := func(f func(*shape)) shape { s := defaults; f(&s); return s }
	tests := []struct {
		name string
		o    Options
		want shape
	}{{
		name: "zero options open no port and keep serve's cache transform",
		want: defaults,
	}, {
		name: "serve's flags: webhooks on TLS 1.2, secure metrics; the manager itself is not elected",
		o: Options{Webhooks: true, Port: 9443, CertDir: "/certs", MetricsAddr: ":8443", MetricsSecure: true,
			LeaderElection: true, LeaderElectionNamespace: "precedent-system"},
		want: with(func(s *shape) {
			s.MetricsAddr, s.MetricsSecure, s.MetricsMinTLS = ":8443", true, tls.VersionTLS12
			s.Webhook = &webhookShape{Port: 9443, CertDir: "/certs", MinTLS: tls.VersionTLS12}
		}),
	}, {
		name: "built-in certificates are served from memory, still TLS 1.2 at least",
		o:    Options{Webhooks: true, Host: "127.0.0.1", Port: 1, GetCertificate: get},
		want: with(func(s *shape) {
			s.Webhook = &webhookShape{Host: "127.0.0.1", Port: 1, MinTLS: tls.VersionTLS12, ServesCertificate: true}
		}),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mo, err := managerOptions(tt.o.withDefaults())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, shapeOf(t, mo)); diff != "" {
				t.Errorf("manager options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWrapWebhookServer(t *testing.T) {
	var wrapped ctrlwebhook.Server
	mo, err := managerOptions(Options{Webhooks: true, WrapWebhookServer: func(s ctrlwebhook.Server) ctrlwebhook.Server {
		wrapped = s
		return counting{s}
	}}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := mo.WebhookServer.(counting); !ok || c.Server != wrapped {
		t.Errorf("webhook server %T, want the wrapper around the server built from the options", mo.WebhookServer)
	}
}

type counting struct{ ctrlwebhook.Server }
