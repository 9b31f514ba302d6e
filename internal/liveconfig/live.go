package liveconfig

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

// Live holds the settings in force. It starts at settings.Defaults(), follows the PrecedentConfig named
// cluster, keeps the last good settings when the object is invalid, and goes back to settings.Defaults()
// when it is deleted. Reads are one atomic load.
type Live struct {
	cur atomic.Pointer[state]
	log logr.Logger

	mu        sync.Mutex
	listeners []func(settings.Settings)
	inForce   chan struct{} // closed (and cleared) when settings next come into force (AwaitVersion)
}

type state struct {
	settings        settings.Settings
	registry        *policy.Registry // settings.Registry(), made once per settings
	resourceVersion string
}

func newState(s settings.Settings, resourceVersion string) *state {
	return &state{settings: s, registry: s.Registry(), resourceVersion: resourceVersion}
}

// NewLive returns settings in force s until a PrecedentConfig is seen.
func NewLive(s settings.Settings, log logr.Logger) *Live {
	l := &Live{log: log}
	l.cur.Store(newState(s, ""))
	return l
}

// OnChange calls f with the new settings each time they change, before they are in force (so a
// listener that prepares for them, such as watching a newly managed kind, is done when the first
// admission reads them). f runs on the informer's goroutine: it should return quickly.
func (l *Live) OnChange(f func(settings.Settings)) {
	l.mu.Lock()
	l.listeners = append(l.listeners, f)
	l.mu.Unlock()
}

// set tells the listeners, then puts s in force.
func (l *Live) set(s settings.Settings, resourceVersion string) {
	l.mu.Lock()
	fs := append([]func(settings.Settings){}, l.listeners...)
	l.mu.Unlock()
	for _, f := range fs {
		f(s)
	}
	l.cur.Store(newState(s, resourceVersion))
	l.mu.Lock()
	if l.inForce != nil {
		close(l.inForce) // wakes AwaitVersion
		l.inForce = nil
	}
	l.mu.Unlock()
}

// AwaitVersion waits until the settings in force were read from the PrecedentConfig of
// resourceVersion rv, woken as settings come into force, or until ctx ends; it reports whether
// they were.
func (l *Live) AwaitVersion(ctx context.Context, rv string) bool {
	for {
		l.mu.Lock()
		if l.ResourceVersion() == rv {
			l.mu.Unlock()
			return true
		}
		if l.inForce == nil {
			l.inForce = make(chan struct{})
		}
		ch := l.inForce
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// Current returns the settings in force.
func (l *Live) Current() settings.Settings { return l.cur.Load().settings }

// CurrentRegistry returns the settings in force and their registry of managed kinds, built once per
// settings rather than once per admission.
func (l *Live) CurrentRegistry() (settings.Settings, *policy.Registry) {
	st := l.cur.Load()
	return st.settings, st.registry
}

// ResourceVersion is the resourceVersion of the PrecedentConfig the settings in force were read
// from ("" for the defaults), so callers can tell that a write has been observed.
func (l *Live) ResourceVersion() string { return l.cur.Load().resourceVersion }

// Watch follows the PrecedentConfig through the cache's informer.
func (l *Live) Watch(ctx context.Context, c cache.Informers) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(settings.GVK)
	inf, err := c.GetInformer(ctx, u)
	if err != nil {
		return fmt.Errorf("watching %s: %w", settings.GVK.Kind, err)
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { l.observe(obj) },
		UpdateFunc: func(_, obj interface{}) { l.observe(obj) },
		DeleteFunc: func(obj interface{}) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok && u.GetName() == settings.Name {
				l.set(settings.Defaults(), "")
				l.log.Info("settings reset to defaults: PrecedentConfig deleted", "settings", settings.Defaults().String())
			}
		},
	})
	if err != nil {
		return fmt.Errorf("watching %s: %w", settings.GVK.Kind, err)
	}
	return nil
}

func (l *Live) observe(obj interface{}) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GetName() != settings.Name {
		return
	}
	s, errs := settings.Decode(u)
	if len(errs) > 0 {
		l.log.Error(errs.ToAggregate(), "invalid PrecedentConfig ignored: the last good settings stay in force",
			"resourceVersion", u.GetResourceVersion(), "settings", l.Current().String())
		return
	}
	l.set(s, u.GetResourceVersion())
	l.log.Info("settings changed", "resourceVersion", u.GetResourceVersion(), "settings", s.String())
}
