package assembly

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// termShutdown bounds how long a term's controllers may take to finish the reconciles under way
// once the term ends, before the replica campaigns again.
const termShutdown = 10 * time.Second

// runTerm runs the status controllers on a manager of their own until ctx ends (the lease is lost,
// or the process stops), on the replica's cache, client and REST mapper: the term starts no
// informer and ends none, so the webhooks, which read the same informers, serve throughout. The
// event handlers the term's controllers added to the informers are removed when it ends.
func (a *Assembly) runTerm(ctx context.Context) error {
	main := a.Manager
	tc := &termCache{Cache: main.GetCache()}
	defer tc.end()
	mgr, err := manager.New(main.GetConfig(), manager.Options{
		Scheme: main.GetScheme(),
		// Its start and stop ("Stopping and waiting for …") are the reconciler's, not the replica's.
		Logger:         a.log.WithName("reconcile"),
		MapperProvider: func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return main.GetRESTMapper(), nil },
		NewCache:       func(*rest.Config, cache.Options) (cache.Cache, error) { return tc, nil },
		NewClient:      func(*rest.Config, client.Options) (client.Client, error) { return main.GetClient(), nil },
		Metrics:        metricsserver.Options{BindAddress: "0"}, // the replica's /metrics serves the controllers' metrics
		// Every term registers the same controller names again.
		Controller:              config.Controller{SkipNameValidation: ptr.To(true)},
		GracefulShutdownTimeout: ptr.To(termShutdown),
	})
	if err != nil {
		return fmt.Errorf("creating the status reconciler's manager: %w", err)
	}
	if err := a.controllers.SetupWithManager(mgr); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// termCache is the replica's cache as a term's manager sees it: starting it waits for the term's
// end (the replica's manager runs the informers), and the event handlers added through it are
// removed by end.
type termCache struct {
	cache.Cache

	mu   sync.Mutex
	regs []termHandler
}

type termHandler struct {
	informer cache.Informer
	reg      toolscache.ResourceEventHandlerRegistration
}

// Start blocks until the term ends: the informers belong to the replica's manager.
func (c *termCache) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (c *termCache) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	i, err := c.Cache.GetInformer(ctx, obj, opts...)
	if err != nil {
		return nil, err
	}
	return &termInformer{Informer: i, c: c}, nil
}

func (c *termCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	i, err := c.Cache.GetInformerForKind(ctx, gvk, opts...)
	if err != nil {
		return nil, err
	}
	return &termInformer{Informer: i, c: c}, nil
}

func (c *termCache) added(i cache.Informer, reg toolscache.ResourceEventHandlerRegistration, err error) (toolscache.ResourceEventHandlerRegistration, error) {
	if err == nil {
		c.mu.Lock()
		c.regs = append(c.regs, termHandler{informer: i, reg: reg})
		c.mu.Unlock()
	}
	return reg, err
}

// end removes the event handlers the term added; the informers run on.
func (c *termCache) end() {
	c.mu.Lock()
	regs := c.regs
	c.regs = nil
	c.mu.Unlock()
	for _, h := range regs {
		_ = h.informer.RemoveEventHandler(h.reg) // fails only on an informer that has stopped, with its handlers
	}
}

// termInformer records the handlers added to an informer of the replica's cache.
type termInformer struct {
	cache.Informer
	c *termCache
}

func (i *termInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	reg, err := i.Informer.AddEventHandler(h)
	return i.c.added(i.Informer, reg, err)
}

func (i *termInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, resync time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	reg, err := i.Informer.AddEventHandlerWithResyncPeriod(h, resync)
	return i.c.added(i.Informer, reg, err)
}

func (i *termInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, o toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	reg, err := i.Informer.AddEventHandlerWithOptions(h, o)
	return i.c.added(i.Informer, reg, err)
}
