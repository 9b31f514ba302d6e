package assembly

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestTermCacheRemovesItsHandlers: the handlers a term's controllers add to the replica's informers,
// by every way an informer offers, are removed when the term ends, and only those: a term that
// left them would have every later event also run the mappers of controllers that no longer run.
func TestTermCacheRemovesItsHandlers(t *testing.T) {
	ctx := context.Background()
	inf := &recordingInformer{live: map[string]bool{"the replica's own": true}}
	tc := &termCache{Cache: fakeCache{inf: inf}}
	i, err := tc.GetInformer(ctx, &corev1.Secret{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := tc.GetInformerForKind(ctx, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	if err != nil {
		t.Fatal(err)
	}
	var h toolscache.ResourceEventHandlerFuncs
	for _, add := range []func() (toolscache.ResourceEventHandlerRegistration, error){
		func() (toolscache.ResourceEventHandlerRegistration, error) { return i.AddEventHandler(h) },
		func() (toolscache.ResourceEventHandlerRegistration, error) {
			return i.AddEventHandlerWithResyncPeriod(h, time.Minute)
		},
		func() (toolscache.ResourceEventHandlerRegistration, error) {
			return j.AddEventHandlerWithOptions(h, toolscache.HandlerOptions{})
		},
	} {
		if _, err := add(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"1", "2", "3", "the replica's own"}, inf.handlers()); diff != "" {
		t.Fatalf("handlers during the term (-want +got):\n%s", diff)
	}
	tc.end()
	if diff := cmp.Diff([]string{"the replica's own"}, inf.handlers()); diff != "" {
		t.Errorf("handlers after the term (-want +got):\n%s", diff)
	}
}

type fakeCache struct {
	cache.Cache
	inf *recordingInformer
}

func (c fakeCache) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return c.inf, nil
}

func (c fakeCache) GetInformerForKind(context.Context, schema.GroupVersionKind, ...cache.InformerGetOption) (cache.Informer, error) {
	return c.inf, nil
}

// recordingInformer keeps the names of the handlers added and not removed.
type recordingInformer struct {
	cache.Informer
	n    int
	live map[string]bool
}

type registration struct {
	toolscache.ResourceEventHandlerRegistration
	name string
}

func (r *recordingInformer) add() (toolscache.ResourceEventHandlerRegistration, error) {
	r.n++
	reg := registration{name: string(rune('0' + r.n))}
	r.live[reg.name] = true
	return reg, nil
}

func (r *recordingInformer) AddEventHandler(toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return r.add()
}

func (r *recordingInformer) AddEventHandlerWithResyncPeriod(toolscache.ResourceEventHandler, time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return r.add()
}

func (r *recordingInformer) AddEventHandlerWithOptions(toolscache.ResourceEventHandler, toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return r.add()
}

func (r *recordingInformer) RemoveEventHandler(reg toolscache.ResourceEventHandlerRegistration) error {
	delete(r.live, reg.(registration).name)
	return nil
}

func (r *recordingInformer) handlers() []string {
	var out []string
	for n := range r.live {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
