package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/textlogger"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/internal/install"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/webhook"
)

func init() { subcommands = append(subcommands, newDevCmd) }

// managerStop bounds how long dev waits for the webhook server to stop before it stops the control
// plane: a Ctrl-C must not wait on a phase that hangs.
const managerStop = 10 * time.Second

type devOptions struct {
	kubeconfigOut string
	assetsDir     string
	crdDirs       []string
	samples       string
	try           string
	verbosity     int
}

func newDevCmd() *cobra.Command {
	o := &devOptions{}
	cmd := &cobra.Command{
		Use:         "dev",
		Annotations: map[string]string{stopsItself: "true"},
		Short:       "Run a local etcd + kube-apiserver with Precedent's webhooks, the CRDs and the samples",
		Long: `Starts etcd and kube-apiserver (the pinned binaries of ` + "`make control-plane`" + `), installs the Gateway API
and Precedent CRDs, serves the webhooks on 127.0.0.1 with an in-memory self-signed certificate registered in
the API server, applies config/samples/, writes a kubeconfig and runs until interrupted (Ctrl-C, or SIGTERM, or SIGHUP when its terminal
closes), then stops everything it started. Run it from the repository root (` + "`make run`" + ` does).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return o.run(ctx, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfigOut, "kubeconfig-out", "bin/dev.kubeconfig", "where to write the kubeconfig of the local cluster")
	f.StringVar(&o.assetsDir, "control-plane", "bin/control-plane", "folder of the etcd and kube-apiserver binaries (KUBEBUILDER_ASSETS overrides it)")
	f.StringArrayVar(&o.crdDirs, "crd-dir", []string{"config/crd/gateway-api", "config/crd"}, "folders (or files) of CRDs to install (repeatable)")
	f.StringVar(&o.samples, "samples", "config/samples", `folder of samples to apply, one sub-folder at a time ("" applies none)`)
	f.StringVar(&o.try, "try", "config/try", "folder of the manifests the \"try this\" commands apply")
	f.IntVarP(&o.verbosity, "v", "v", 0, "log verbosity of the manager (0: errors only; 1: every admission)")
	return cmd
}

func (o *devOptions) run(ctx context.Context, out io.Writer) error {
	start := time.Now()
	step := func(format string, args ...interface{}) { fmt.Fprintf(out, "  ✓ "+format+"\n", args...) }
	// failed marks what did not happen as asked (a sample set skipped or not wholly applied): never ✓.
	failed := func(format string, args ...interface{}) { fmt.Fprintf(out, "  ✗ "+format+"\n", args...) }
	fmt.Fprintln(out, "precedent dev: starting a local control plane with Precedent's webhooks")
	// controller-runtime's logger before anything logs (envtest's CRD install does, at V(1)).
	ctrl.SetLogger(devLogger(o.verbosity))
	env, err := controlplane.StartContext(ctx, controlplane.Options{AssetsDir: o.assetsDir, CRDDirs: o.crdDirs, Step: step})
	if ctx.Err() != nil {
		fmt.Fprintln(out, "\nstopped before the control plane was up: nothing left running")
		return nil
	}
	if err != nil {
		return err
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(out, "error stopping the control plane:", err)
			return
		}
		fmt.Fprintln(out, "stopped: webhooks, kube-apiserver and etcd")
	}()

	quiet := rest.CopyConfig(env.Config)
	quiet.WarningHandler = rest.NoWarnings{}
	c, err := client.New(quiet, client.Options{})
	if err != nil {
		return err
	}
	// dev owns the webhook configurations: a kind added under `kinds` in the PrecedentConfig is
	// registered as it comes in, so its writes reach the webhook with no hand edit.
	reg := &registrar{env: env, c: c, kinds: settings.Defaults().Registry().Kinds(), out: out}

	mgrCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	done := make(chan error, 1)
	so := &serveOptions{
		host: "127.0.0.1", port: env.Port, certDir: env.CertDir, metricsAddr: "0", probeAddr: "0",
		logger:     devLogger(o.verbosity),
		onReady:    func() { close(ready) },
		onSettings: func(s settings.Settings) { reg.settings(ctx, s) },
	}
	finished := make(chan struct{})
	go func() { done <- serve(mgrCtx, env.Config, so); close(finished) }()
	// The manager gets managerStop to stop; the control plane is stopped after it either way.
	defer func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(managerStop):
			fmt.Fprintf(out, "the webhook server did not stop within %s: stopping the control plane anyway\n", managerStop)
		}
	}()
	select {
	case <-ready:
	case err := <-done:
		return fmt.Errorf("webhook server: %w", err)
	case <-ctx.Done():
		fmt.Fprintln(out, "\nstopping")
		return nil
	}
	step("webhook server on https://127.0.0.1:%d, informer cache synced", env.Port)

	if err := reg.start(ctx); err != nil {
		return stopped(ctx, out, err)
	}
	if err := env.WaitWebhooksCalled(ctx, func(ctx context.Context) bool { return webhookAnswers(ctx, c) }); err != nil {
		return stopped(ctx, out, fmt.Errorf("the API server does not call the webhooks: %w", err))
	}
	step("webhooks registered: the API server calls them (validating %s, mutating %s)", webhook.ValidatePath, webhook.MutatePath)

	if o.samples != "" {
		names, err := configureComponents(ctx, c, reg, ".")
		if err != nil {
			return stopped(ctx, out, err)
		}
		if len(names) > 0 {
			step("PrecedentConfig cluster: the kind lines of the components %s, webhooks registered for them", strings.Join(names, ", "))
		}
		applied, err := controlplane.ApplySamples(ctx, c, o.samples)
		if err != nil {
			return stopped(ctx, out, err)
		}
		for _, a := range applied {
			switch {
			case a.Skipped != "":
				failed("samples %s skipped: %s", a.Folder, a.Skipped)
			case len(a.Rejected) > 0:
				failed("samples %s not all applied: %d objects created, %d rejected", a.Folder, a.Created, len(a.Rejected))
			default:
				step("samples %s applied: %d objects", a.Folder, a.Created)
			}
			for _, r := range a.Rejected {
				fmt.Fprintln(out, "    rejected:", r)
			}
		}
	}

	kc, _, err := env.AddAdmin("dev")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(o.kubeconfigOut), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(o.kubeconfigOut, kc, 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	step("kubeconfig written (%s since start)", time.Since(start).Round(100*time.Millisecond))
	fmt.Fprintf(out, "ready: kubeconfig=%s\n", o.kubeconfigOut)
	kubectl := "kubectl --kubeconfig " + o.kubeconfigOut
	try := o.try
	fmt.Fprintf(out, `
try this (Ctrl-C stops everything):
  # rejected: unset of a rule that the Gateway policy c1/gw-policy sets as an override
  %[1]s apply -f %[2]s/rejected-unset.yaml
  # rejected: bare rules together with spec.defaults
  %[1]s apply -f %[2]s/rejected-mixed.yaml
  # a warning without writing anything: rule authorization.b is overridden by c1/gw-policy
  %[1]s apply --dry-run=server -f %[2]s/warning-overridden.yaml
  # the same, admitted (once applied, re-applying it sends nothing: kubectl sees no change)
  %[1]s apply -f %[2]s/warning-overridden.yaml
  # switch unset off for the whole cluster, then try an unset again
  %[1]s apply -f %[2]s/unset-off.yaml
`, kubectl, try)

	select {
	case <-ctx.Done():
		fmt.Fprintln(out, "\nstopping")
		return nil
	case err := <-done:
		return fmt.Errorf("webhook server stopped: %w", err)
	}
}

// configureComponents adds to the PrecedentConfig cluster the kind lines of each kustomize component
// under root/config (install.Components) whose kinds the API server serves, as the components do in
// a cluster, and waits until the webhooks are registered for them. It returns the components' names.
func configureComponents(ctx context.Context, c client.Client, reg *registrar, root string) ([]string, error) {
	cs, err := install.Components(root)
	if err != nil {
		return nil, err
	}
	var names []string
	var lines []any
	var gvks []schema.GroupVersionKind
	for _, comp := range cs {
		served := true
		for _, k := range comp.Kinds {
			if _, err := c.RESTMapper().RESTMapping(k.GVK.GroupKind(), k.GVK.Version); err != nil {
				served = false
			}
		}
		if !served {
			continue
		}
		names = append(names, comp.Name())
		lines = append(lines, comp.Lines()...)
		for _, k := range comp.Kinds {
			gvks = append(gvks, k.GVK)
		}
	}
	if len(lines) == 0 {
		return nil, nil
	}
	pc := &unstructured.Unstructured{}
	pc.SetGroupVersionKind(settings.GVK)
	err = c.Get(ctx, client.ObjectKey{Name: settings.Name}, pc)
	switch {
	case apierrors.IsNotFound(err):
		pc.SetName(settings.Name)
		// As if applied empty by kubectl (config/settings), so `kubectl apply` of a PrecedentConfig
		// later merges into it (config/try/unset-off.yaml keeps these kinds) without a warning.
		pc.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q}}`, settings.GVK.GroupVersion(), settings.GVK.Kind, settings.Name)})
		pc.Object["spec"] = map[string]any{"kinds": lines}
		err = c.Create(ctx, pc)
	case err == nil:
		kinds, _, _ := unstructured.NestedSlice(pc.Object, "spec", "kinds")
		err = unstructured.SetNestedSlice(pc.Object, append(kinds, lines...), "spec", "kinds")
		if err == nil {
			err = c.Update(ctx, pc)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("adding the components' kinds to the PrecedentConfig: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return reg.manages(gvks), nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the webhooks of the components' kinds: %w", err)
	}
	return names, nil
}

// stopped is err, or nil when ctx ended (Ctrl-C) and err is only its consequence.
func stopped(ctx context.Context, out io.Writer, err error) error {
	if ctx.Err() != nil {
		fmt.Fprintln(out, "\nstopping")
		return nil
	}
	return err
}

// webhookAnswers reports whether a server-side dry-run of an invalid policy is rejected by
// Precedent's validating webhook (and not only by the schema).
func webhookAnswers(ctx context.Context, c client.Client) bool {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("policy.precedent.dev/v1alpha1")
	u.SetKind("RateLimitPolicy")
	u.SetNamespace("default")
	u.SetName("precedent-dev-probe")
	u.Object["spec"] = map[string]interface{}{
		"targetRef": map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "probe"},
		"unset":     []interface{}{"probe", "probe"},
	}
	err := c.Create(ctx, u, client.DryRunAll)
	return apierrors.IsInvalid(err) && strings.Contains(err.Error(), "denied the request")
}

// devLogger logs errors only, unless verbosity > 0.
func devLogger(v int) logr.Logger {
	l := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(v)))
	if v > 0 {
		return l
	}
	return logr.New(errorsOnly{l.GetSink()})
}

type errorsOnly struct{ logr.LogSink }

func (errorsOnly) Enabled(int) bool { return false }
func (s errorsOnly) WithValues(kv ...interface{}) logr.LogSink {
	return errorsOnly{s.LogSink.WithValues(kv...)}
}
func (s errorsOnly) WithName(n string) logr.LogSink { return errorsOnly{s.LogSink.WithName(n)} }

// registrar keeps dev's webhook configurations on the managed kinds of the settings in force.
type registrar struct {
	env *controlplane.Env
	c   client.Client
	out io.Writer

	mu      sync.Mutex
	kinds   []policy.Kind
	started bool
}

// start registers the webhooks for the kinds managed now.
func (r *registrar) start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = true
	return r.env.RegisterWebhooks(ctx, r.c, r.kinds)
}

// manages reports whether the webhooks are registered for every kind of gvks.
func (r *registrar) manages(gvks []schema.GroupVersionKind) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range gvks {
		if !slices.ContainsFunc(r.kinds, func(k policy.Kind) bool { return k.GVK == g }) {
			return false
		}
	}
	return r.started
}

// settings registers the webhooks again when the managed kinds change (once started).
func (r *registrar) settings(ctx context.Context, s settings.Settings) {
	kinds := s.Registry().Kinds()
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.EqualFunc(kinds, r.kinds, func(a, b policy.Kind) bool { return a.Equal(b) }) {
		return
	}
	r.kinds = kinds
	if !r.started {
		return
	}
	if err := r.env.RegisterWebhooks(ctx, r.c, kinds); err != nil {
		fmt.Fprintln(r.out, "registering the webhooks for the managed kinds:", err)
		return
	}
	fmt.Fprintf(r.out, "  ✓ webhooks registered for %d managed kinds\n", len(kinds))
}
