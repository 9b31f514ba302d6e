// Package statetest feeds a state.State through fake informers, for the tests and benchmarks of the
// packages that read it: objects given to Add and Update reach the State's own event handlers.
package statetest

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllertest"

	"github.com/precedent-dev/precedent/internal/state"
)

// New returns fake informers over Precedent's scheme.
func New(t testing.TB) *Informers {
	t.Helper()
	scheme, err := state.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return &Informers{FakeInformers: &informertest.FakeInformers{Scheme: scheme}, byGVK: map[schema.GroupVersionKind]*controllertest.FakeInformer{}}
}

// Informers hands out one synced fake informer per GroupVersionKind, typed, unstructured and
// metadata-only alike, so the objects it is given reach the State's event handlers.
type Informers struct {
	*informertest.FakeInformers
	byGVK map[schema.GroupVersionKind]*controllertest.FakeInformer
}

func (f *Informers) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return f.informer(obj)
}

func (f *Informers) informer(obj client.Object) (*controllertest.FakeInformer, error) {
	gvk, err := apiutil.GVKForObject(obj, f.Scheme)
	if err != nil {
		return nil, err
	}
	inf, ok := f.byGVK[gvk]
	if !ok {
		inf = controllertest.NewFakeInformer(controllertest.Synced)
		f.byGVK[gvk] = inf
	}
	return inf, nil
}

// Update delivers an update of old to cur.
func (f *Informers) Update(b testing.TB, old, cur client.Object) {
	inf, err := f.informer(cur)
	if err != nil {
		b.Fatal(err)
	}
	inf.Update(old, cur)
}

// Add delivers obj as added.
func (f *Informers) Add(b testing.TB, obj client.Object) {
	inf, err := f.informer(obj)
	if err != nil {
		b.Fatal(err)
	}
	inf.Add(obj)
}

// Set makes inf the informer of gvk (e.g. one that has not synced yet).
func (f *Informers) Set(gvk schema.GroupVersionKind, inf *controllertest.FakeInformer) {
	f.byGVK[gvk] = inf
}

// Delete delivers obj as deleted.
func (f *Informers) Delete(b testing.TB, obj client.Object) {
	inf, err := f.informer(obj)
	if err != nil {
		b.Fatal(err)
	}
	inf.Delete(obj)
}
