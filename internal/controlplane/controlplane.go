package controlplane

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/precedent-dev/precedent/certs"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/webhook"
)

// Options configure a local control plane.
type Options struct {
	// AssetsDir holds the etcd and kube-apiserver binaries (KUBEBUILDER_ASSETS overrides it).
	AssetsDir string
	// CRDDirs are folders (or files) of CRD manifests to install (non-CRD documents are skipped).
	CRDDirs []string
	// Step is told about each start-up step as it completes (may be nil).
	Step func(format string, args ...interface{})
	// APIServerFlags are kube-apiserver flags (names without dashes) set over envtest's defaults,
	// e.g. "enable-aggregator-routing": "true".
	APIServerFlags map[string]string
}

// Env is a running etcd + kube-apiserver with the CRDs installed, and the serving certificate of a
// webhook server on 127.0.0.1 that the API server trusts.
type Env struct {
	env *envtest.Environment
	// Config is an admin client configuration.
	Config *rest.Config
	// CertDir holds tls.crt and tls.key for the webhook server; Port is a free port for it.
	CertDir string
	Port    int
	ca      []byte
	// dir holds every file of the control plane: apiDir, the API server's own folder (serving
	// certificate, service-account keys), kept across RestartAPIServer so that its clients and the
	// tokens it signed stay valid; etcd's data; and CertDir.
	dir, apiDir string
	// watchdog kills the processes and removes dir if this process ends without Stop.
	watchdog *watchdog
}

// Start starts etcd and kube-apiserver and installs the CRDs.
func Start(o Options) (*Env, error) { return start(context.Background(), o) }

// StartContext is Start that gives up when ctx ends (Ctrl-C): it returns ctx's error at once, with
// nothing left behind: what was started by then is stopped, and its folders removed, before it
// returns (a step under way is let finish first; envtest bounds each by its start timeout).
func StartContext(ctx context.Context, o Options) (*Env, error) {
	type result struct {
		e   *Env
		err error
	}
	res := make(chan result, 1)
	go func() {
		e, err := start(ctx, o)
		res <- result{e, err}
	}()
	select {
	case r := <-res:
		return r.e, r.err
	case <-ctx.Done():
		if r := <-res; r.err == nil {
			_ = r.e.Stop()
		}
		return nil, ctx.Err()
	}
}

func start(ctx context.Context, o Options) (*Env, error) {
	step := o.Step
	if step == nil {
		step = func(string, ...interface{}) {}
	}
	e := &Env{env: &envtest.Environment{BinaryAssetsDirectory: o.AssetsDir, ControlPlaneStartTimeout: time.Minute}}
	var err error
	if e.dir, err = os.MkdirTemp("", "precedent-control-plane-"); err != nil {
		return nil, fmt.Errorf("making the control plane's folder: %w", err)
	}
	e.apiDir = filepath.Join(e.dir, "apiserver")
	etcdDir := filepath.Join(e.dir, "etcd")
	for _, d := range []string{e.apiDir, etcdDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			_ = os.RemoveAll(e.dir)
			return nil, fmt.Errorf("making the control plane's folders: %w", err)
		}
	}
	if e.watchdog, err = startWatchdog(e.dir); err != nil {
		_ = os.RemoveAll(e.dir)
		return nil, err
	}
	api := e.env.ControlPlane.GetAPIServer()
	api.CertDir = e.apiDir
	e.env.ControlPlane.Etcd = &envtest.Etcd{DataDir: etcdDir}
	for name, value := range o.APIServerFlags {
		api.Configure().Set(name, value)
	}
	t0 := time.Now()
	cfg, err := e.env.Start()
	if err != nil {
		e.watchdog.stop()
		_ = os.RemoveAll(e.dir)
		return nil, fmt.Errorf("starting etcd and kube-apiserver (binaries from %s; `make control-plane` builds them): %w", assets(o.AssetsDir), err)
	}
	e.Config = cfg
	e.watchdog.remove(e.env.WebhookInstallOptions.LocalServingCertDir)
	if err := ctx.Err(); err != nil {
		_ = e.Stop()
		return nil, err
	}
	step("etcd %s and kube-apiserver %s started (%s)", e.env.ControlPlane.Etcd.URL.Host, cfg.Host, time.Since(t0).Round(time.Millisecond))

	t0 = time.Now()
	crds, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: o.CRDDirs, ErrorIfPathMissing: true})
	if err != nil {
		_ = e.Stop()
		return nil, fmt.Errorf("installing the CRDs of %v: %w", o.CRDDirs, err)
	}
	step("%d CRDs installed (%s)", len(crds), time.Since(t0).Round(time.Millisecond))
	if err := ctx.Err(); err != nil {
		_ = e.Stop()
		return nil, err
	}

	dev, err := certs.NewDev(24 * time.Hour)
	if err == nil {
		e.CertDir = filepath.Join(e.dir, "webhook-certs")
		err = os.Mkdir(e.CertDir, 0o700)
	}
	if err == nil {
		err = dev.WriteDir(e.CertDir)
	}
	if err == nil {
		e.Port, err = freePort()
	}
	if err != nil {
		_ = e.Stop()
		return nil, fmt.Errorf("preparing the webhook server's certificate: %w", err)
	}
	e.ca = dev.CAPEM
	step("self-signed serving certificate for 127.0.0.1 in %s", e.CertDir)
	return e, nil
}

// RegisterWebhooks creates or updates the webhook configurations for kinds, pointing at
// https://127.0.0.1:<Port>, trusting the dev CA. An update replaces the webhooks in place: there is
// no moment without them.
func (e *Env) RegisterWebhooks(ctx context.Context, c client.Client, kinds []policy.Kind) error {
	m, v := webhook.Configurations(kinds, webhook.URLClientConfig(fmt.Sprintf("https://127.0.0.1:%d", e.Port), e.ca))
	mc := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: m.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, mc, func() error { mc.Webhooks = m.Webhooks; return nil }); err != nil {
		return fmt.Errorf("registering the mutating webhook configuration: %w", err)
	}
	vc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: v.Name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, vc, func() error { vc.Webhooks = v.Webhooks; return nil }); err != nil {
		return fmt.Errorf("registering the validating webhook configuration: %w", err)
	}
	return nil
}

// WaitWebhooksCalled waits until the API server calls the validating webhook: the webhook
// configuration takes effect asynchronously, after its informer in the API server sees it.
func (e *Env) WaitWebhooksCalled(ctx context.Context, probe func(ctx context.Context) bool) error {
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return probe(ctx), nil
	})
}

// AddAdmin makes an admin user and returns its kubeconfig.
func (e *Env) AddAdmin(name string) ([]byte, *rest.Config, error) {
	u, err := e.env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("adding user %s: %w", name, err)
	}
	kc, err := u.KubeConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("writing the kubeconfig of %s: %w", name, err)
	}
	return kc, u.Config(), nil
}

// APIServerCA is the CA of the API server's serving certificate (for "localhost" and 127.0.0.1).
func (e *Env) APIServerCA() []byte {
	return e.env.ControlPlane.APIServer.SecureServing.CA
}

// RestartAPIServer stops kube-apiserver (SIGTERM, as a rolling upgrade of the control plane does;
// SIGKILL if it has not exited within the stop timeout, 20 s) and starts it again on the same port
// with the same certificates and flags; it returns once the API server reports healthy. etcd keeps
// running. stopErr says whether the stop timed out (then the process was killed).
func (e *Env) RestartAPIServer() (stopErr, err error) {
	api := e.env.ControlPlane.APIServer
	stopErr = api.Stop()
	if err := api.Start(); err != nil {
		return stopErr, fmt.Errorf("starting kube-apiserver again: %w", err)
	}
	return stopErr, nil
}

// Stop stops kube-apiserver and etcd and removes their folder.
func (e *Env) Stop() error {
	err := e.env.Stop()
	e.watchdog.stop()
	_ = os.RemoveAll(e.dir)
	return err
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func assets(dir string) string {
	if a := os.Getenv("KUBEBUILDER_ASSETS"); a != "" {
		return a
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return abs
}
