package config

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/precedent-dev/precedent/policy"
)

// GVK is the PrecedentConfig kind; Name is the name of the one object that is read.
var GVK = schema.GroupVersionKind{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "PrecedentConfig"}

// Name of the singleton PrecedentConfig.
const Name = "cluster"

// Live holds the settings in force. It starts at Defaults(), follows the PrecedentConfig named
// cluster, keeps the last good settings when the object is invalid, and goes back to Defaults()
// when it is deleted. Reads are one atomic load.
type Live struct {
	cur atomic.Pointer[state]
	log logr.Logger

	mu        sync.Mutex
	listeners []func(Settings)
}

type state struct {
	settings        Settings
	registry        *policy.Registry // settings.Registry(), made once per settings
	resourceVersion string
}

func newState(s Settings, resourceVersion string) *state {
	return &state{settings: s, registry: s.Registry(), resourceVersion: resourceVersion}
}

// NewLive returns settings in force s until a PrecedentConfig is seen.
func NewLive(s Settings, log logr.Logger) *Live {
	l := &Live{log: log}
	l.cur.Store(newState(s, ""))
	return l
}

// OnChange calls f with the new settings each time they change, before they are in force (so a
// listener that prepares for them, such as watching a newly managed kind, is done when the first
// admission reads them). f runs on the informer's goroutine: it should return quickly.
func (l *Live) OnChange(f func(Settings)) {
	l.mu.Lock()
	l.listeners = append(l.listeners, f)
	l.mu.Unlock()
}

// set tells the listeners, then puts s in force.
func (l *Live) set(s Settings, resourceVersion string) {
	l.mu.Lock()
	fs := append([]func(Settings){}, l.listeners...)
	l.mu.Unlock()
	for _, f := range fs {
		f(s)
	}
	l.cur.Store(newState(s, resourceVersion))
}

// Current returns the settings in force.
func (l *Live) Current() Settings { return l.cur.Load().settings }

// CurrentRegistry returns the settings in force and their registry of managed kinds, built once per
// settings rather than once per admission.
func (l *Live) CurrentRegistry() (Settings, *policy.Registry) {
	st := l.cur.Load()
	return st.settings, st.registry
}

// ResourceVersion is the resourceVersion of the PrecedentConfig the settings in force were read
// from ("" for the defaults), so callers can tell that a write has been observed.
func (l *Live) ResourceVersion() string { return l.cur.Load().resourceVersion }

// Decode reads and validates the spec of a PrecedentConfig, starting from Defaults() so that absent
// fields keep their default. Errors carry the field paths of the object.
func Decode(u *unstructured.Unstructured) (Settings, field.ErrorList) {
	s := Defaults()
	spec := field.NewPath("spec")
	if u.GetName() != Name {
		return s, field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), u.GetName(), "the PrecedentConfig is a singleton and must be named cluster")}
	}
	raw, ok := u.Object["spec"]
	if ok && raw != nil {
		b, err := json.Marshal(raw)
		if err != nil {
			return s, field.ErrorList{field.Invalid(spec, "", err.Error())}
		}
		// Go's decoder matches keys case-insensitively, so kinds[].gvk.group fills GVK.Group.
		if err := json.Unmarshal(b, &s); err != nil {
			return s, field.ErrorList{field.Invalid(spec, "", fmt.Sprintf("cannot read the settings: %v", err))}
		}
	}
	s.Default()
	return s, s.Validate(spec)
}

// Watch follows the PrecedentConfig through the cache's informer.
func (l *Live) Watch(ctx context.Context, c cache.Informers) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(GVK)
	inf, err := c.GetInformer(ctx, u)
	if err != nil {
		return fmt.Errorf("watching %s: %w", GVK.Kind, err)
	}
	_, err = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { l.observe(obj) },
		UpdateFunc: func(_, obj interface{}) { l.observe(obj) },
		DeleteFunc: func(obj interface{}) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok && u.GetName() == Name {
				l.set(Defaults(), "")
				l.log.Info("settings reset to defaults: PrecedentConfig deleted", "settings", Defaults().String())
			}
		},
	})
	if err != nil {
		return fmt.Errorf("watching %s: %w", GVK.Kind, err)
	}
	return nil
}

func (l *Live) observe(obj interface{}) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GetName() != Name {
		return
	}
	s, errs := Decode(u)
	if len(errs) > 0 {
		l.log.Error(errs.ToAggregate(), "invalid PrecedentConfig ignored: the last good settings stay in force",
			"resourceVersion", u.GetResourceVersion(), "settings", l.Current().String())
		return
	}
	l.set(s, u.GetResourceVersion())
	l.log.Info("settings changed", "resourceVersion", u.GetResourceVersion(), "settings", s.String())
}
