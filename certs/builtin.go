package certs

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Builtin is the certificate mode for clusters without cert-manager. The Secret is the one source
// of truth: a CA, the serving pair and the rotation's state (see Next). Every replica runs it:
//   - it watches the Secret (an informer on that one Secret) and serves, through GetCertificate, the
//     pair the Secret holds, so a new serving certificate reaches every replica within moments and
//     nothing is written to disk;
//   - it watches the two webhook configurations and puts the Secret's bundle back into their
//     caBundle whenever it is missing or differs;
//   - it moves the rotation along (Next), writing the Secret with a compare-and-swap on its
//     resourceVersion, and creates the Secret when it is absent (one replica wins, the others read
//     its Secret).
//
// Webhook configurations are written by every replica, not only a leader, so a lost caBundle comes
// back within moments even while leadership changes hands. Each write is a compare-and-swap, and
// carries the bundle's generation in an annotation: a replica whose view of the Secret is older than
// the configuration's never overwrites it.
type Builtin struct {
	// Config reaches the API server.
	Config *rest.Config
	// Secret keeps the CA and the serving certificate.
	Secret types.NamespacedName
	// Mutating and Validating name the webhook configurations to inject ("" skips one).
	Mutating, Validating string
	Lifetimes            Lifetimes
	Log                  logr.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time

	client client.Client
	cache  cache.Cache
	wake   chan struct{}

	mu      sync.Mutex
	pair    *tls.Certificate
	pairPEM []byte
}

// GenerationAnnotation on a webhook configuration is the generation of the bundle in its caBundle.
const GenerationAnnotation = "certs.precedent.dev/bundle-generation"

// Init connects to the API server and starts watching the Secret and the webhook configurations;
// Start then runs the loop. serve calls Init before the manager starts so that a wrong
// configuration fails at once.
func (b *Builtin) Init() error {
	if b.Now == nil {
		b.Now = time.Now
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return err
	}
	if err := admissionregistrationv1.AddToScheme(scheme); err != nil {
		return err
	}
	var err error
	if b.client, err = client.New(b.Config, client.Options{Scheme: scheme}); err != nil {
		return fmt.Errorf("creating a client for the built-in certificates: %w", err)
	}
	named := func(name string) fields.Selector { return fields.OneTermEqualSelector("metadata.name", name) }
	b.cache, err = cache.New(b.Config, cache.Options{Scheme: scheme, ByObject: map[client.Object]cache.ByObject{
		&corev1.Secret{}: {Namespaces: map[string]cache.Config{b.Secret.Namespace: {}}, Field: named(b.Secret.Name)},
		&admissionregistrationv1.MutatingWebhookConfiguration{}:   {Field: named(b.Mutating)},
		&admissionregistrationv1.ValidatingWebhookConfiguration{}: {Field: named(b.Validating)},
	}})
	if err != nil {
		return fmt.Errorf("creating the certificate watches: %w", err)
	}
	b.wake = make(chan struct{}, 1)
	return nil
}

// GetCertificate returns the serving pair the Secret holds now (for tls.Config.GetCertificate).
func (b *Builtin) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pair == nil {
		return nil, fmt.Errorf("no serving certificate yet from Secret %s", b.Secret)
	}
	return b.pair, nil
}

// NeedLeaderElection is false: every replica serves webhooks.
func (b *Builtin) NeedLeaderElection() bool { return false }

// Start watches and reconciles until ctx ends; the last pair keeps being served after that, so
// admissions in flight during shutdown still complete their handshakes.
func (b *Builtin) Start(ctx context.Context) error {
	objs := []client.Object{&corev1.Secret{}}
	for _, t := range b.configurations() {
		objs = append(objs, t.obj)
	}
	for _, o := range objs {
		inf, err := b.cache.GetInformer(ctx, o)
		if err != nil {
			return fmt.Errorf("watching %T: %w", o, err)
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { b.changed(obj) },
			UpdateFunc: func(_, obj any) { b.changed(obj) },
			DeleteFunc: func(any) { b.poke() },
		}); err != nil {
			return err
		}
	}
	go func() { _ = b.cache.Start(ctx) }()
	if !b.cache.WaitForCacheSync(ctx) {
		return nil
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-b.wake:
		case <-timer.C:
		}
		wake, err := b.reconcile(ctx)
		if err != nil && ctx.Err() == nil {
			b.Log.Error(err, "built-in certificates", "secret", b.Secret.String())
			wake = b.Now().Add(time.Second) // the next event or a second, whichever comes first
		}
		timer.Stop()
		if !wake.IsZero() {
			timer.Reset(max(wake.Sub(b.Now()), 0))
		}
	}
}

// changed serves the Secret's pair at once (not waiting for the loop), then wakes the loop.
func (b *Builtin) changed(obj any) {
	if sec, ok := obj.(*corev1.Secret); ok {
		if err := b.serve(sec.Data); err != nil {
			b.Log.Error(err, "reading the serving certificate", "secret", b.Secret.String())
		}
	}
	b.poke()
}

func (b *Builtin) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// serve makes the data's pair the one GetCertificate returns.
func (b *Builtin) serve(data map[string][]byte) error {
	pemPair := append(bytes.Clone(data[corev1.TLSCertKey]), data[corev1.TLSPrivateKeyKey]...)
	b.mu.Lock()
	same := bytes.Equal(pemPair, b.pairPEM)
	b.mu.Unlock()
	if same {
		return nil
	}
	pair, err := tls.X509KeyPair(data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.pair, b.pairPEM = &pair, pemPair
	b.mu.Unlock()
	b.Log.Info("serving certificate loaded", "secret", b.Secret.String(), "state", Describe(data))
	return nil
}

// reconcile serves the Secret's pair, injects its bundle and applies the rotation's next step; it
// returns when to look again.
func (b *Builtin) reconcile(ctx context.Context) (time.Time, error) {
	sec := &corev1.Secret{}
	err := b.cache.Get(ctx, b.Secret, sec)
	if apierrors.IsNotFound(err) {
		return time.Time{}, b.create(ctx)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("reading Secret %s: %w", b.Secret, err)
	}
	if err := b.serve(sec.Data); err != nil {
		b.Log.Error(err, "reading the serving certificate", "secret", b.Secret.String())
	}
	carried, err := b.inject(ctx, sec.Data)
	if err != nil {
		return time.Time{}, err
	}
	plan, err := Next(sec.Data, b.Now(), carried, b.Lifetimes)
	if err != nil || plan.Step == StepNone {
		return plan.Wake, err
	}
	sec.Data = plan.Data
	if err := b.client.Update(ctx, sec); err != nil {
		if apierrors.IsConflict(err) { // another replica moved first; its write wakes us
			return time.Time{}, nil
		}
		return time.Time{}, fmt.Errorf("writing Secret %s (%s): %w", b.Secret, plan.Step, err)
	}
	b.Log.Info("built-in certificates", "step", string(plan.Step), "secret", b.Secret.String(), "state", Describe(plan.Data))
	return plan.Wake, nil
}

// create makes the Secret; when another replica made it first, its Secret arrives through the watch.
// The bundle's generation counts on from the configurations', so a re-created Secret's bundle is
// injected over the one they carry.
func (b *Builtin) create(ctx context.Context) error {
	var gen int64
	for _, t := range b.configurations() {
		if err := b.cache.Get(ctx, types.NamespacedName{Name: t.name}, t.obj); err == nil {
			gen = max(gen, configGeneration(t.obj))
		}
	}
	plan, err := Next(map[string][]byte{KeyGeneration: []byte(fmt.Sprint(gen))}, b.Now(), true, b.Lifetimes)
	if err != nil {
		return err
	}
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: b.Secret.Namespace, Name: b.Secret.Name},
		Type:       corev1.SecretTypeTLS, Data: plan.Data,
	}
	err = b.client.Create(ctx, sec)
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil
	case err != nil:
		return fmt.Errorf("creating Secret %s: %w", b.Secret, err)
	}
	b.Log.Info("built-in certificates", "step", string(plan.Step), "secret", b.Secret.String(), "state", Describe(plan.Data))
	return b.serve(plan.Data)
}

// inject puts the data's bundle into every webhook of the two configurations where it is missing or
// differs, unless a configuration already carries a newer generation. It reports whether every
// configuration now carries the bundle.
func (b *Builtin) inject(ctx context.Context, data map[string][]byte) (bool, error) {
	bundle, gen := data[KeyBundle], Generation(data)
	carried := true
	var errs []error
	for _, t := range b.configurations() {
		if err := b.cache.Get(ctx, types.NamespacedName{Name: t.name}, t.obj); apierrors.IsNotFound(err) {
			continue // not installed: nobody calls it
		} else if err != nil {
			return false, err
		}
		if configGeneration(t.obj) > gen {
			carried = false // a newer Secret is on its way to this replica
			continue
		}
		changed := configGeneration(t.obj) != gen
		for _, f := range CABundles(t.obj) {
			if !bytes.Equal(*f, bundle) {
				*f, changed = bytes.Clone(bundle), true
			}
		}
		if !changed {
			continue
		}
		ann := t.obj.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[GenerationAnnotation] = fmt.Sprint(gen)
		t.obj.SetAnnotations(ann)
		if err := b.client.Update(ctx, t.obj); err != nil {
			carried = false
			if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) { // a conflict's winner wakes us
				errs = append(errs, fmt.Errorf("injecting the CA into %T %s: %w", t.obj, t.name, err))
			}
			continue
		}
		b.Log.Info("caBundle injected", "configuration", t.name, "generation", gen)
	}
	return carried, errors.Join(errs...)
}

// CABundles points at the caBundle of every webhook of a configuration.
func CABundles(obj client.Object) []*[]byte {
	var out []*[]byte
	switch c := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for i := range c.Webhooks {
			out = append(out, &c.Webhooks[i].ClientConfig.CABundle)
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for i := range c.Webhooks {
			out = append(out, &c.Webhooks[i].ClientConfig.CABundle)
		}
	}
	return out
}

func configGeneration(obj client.Object) int64 {
	var n int64
	if _, err := fmt.Sscan(obj.GetAnnotations()[GenerationAnnotation], &n); err != nil {
		return 0
	}
	return n
}

type configuration struct {
	name string
	obj  client.Object
}

// configurations are the named webhook configurations, each with an empty object to read it into.
func (b *Builtin) configurations() []configuration {
	var out []configuration
	if b.Mutating != "" {
		out = append(out, configuration{b.Mutating, &admissionregistrationv1.MutatingWebhookConfiguration{}})
	}
	if b.Validating != "" {
		out = append(out, configuration{b.Validating, &admissionregistrationv1.ValidatingWebhookConfiguration{}})
	}
	return out
}
