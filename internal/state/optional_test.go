package state_test

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/internal/topology"
)

// withoutListenerSets are informers of a cluster where the ListenerSet CRD is not installed until
// installed is set.
type withoutListenerSets struct {
	*statetest.Informers
	installed bool
}

func (w *withoutListenerSets) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	if _, ok := obj.(*gwv1.ListenerSet); ok && !w.installed {
		return nil, &meta.NoKindMatchError{GroupKind: gwv1.SchemeGroupVersion.WithKind("ListenerSet").GroupKind()}
	}
	return w.Informers.GetInformer(ctx, obj, opts...)
}

// TestListenerSetsWatchedOnceInstalled: without the ListenerSet CRD the state watches the rest; once
// it is installed, WatchKinds (called every InstallRetry) watches ListenerSets and their listeners
// join the graph.
func TestListenerSetsWatchedOnceInstalled(t *testing.T) {
	inf := &withoutListenerSets{Informers: statetest.New(t)}
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := st.Watch(ctx, inf, nil); err != nil {
		t.Fatalf("Watch without the ListenerSet CRD: %v", err)
	}
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw", Generation: 1}}
	gw.Spec.GatewayClassName = "c"
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(gwv1.NamespacesFromAll)}}
	gw.Spec.Listeners = []gwv1.Listener{{Name: "web", Port: 80, Protocol: gwv1.HTTPProtocolType}}
	inf.Add(t, gw)
	ls := func(name string) *gwv1.ListenerSet {
		o := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Generation: 1}}
		o.Spec.ParentRef = gwv1.ParentGatewayReference{Name: "gw", Namespace: ptr.To(gwv1.Namespace("infra"))}
		o.Spec.Listeners = []gwv1.ListenerEntry{{Name: "extra", Port: 8080, Protocol: gwv1.HTTPProtocolType}}
		return o
	}
	lsPaths := func() int {
		return len(st.Graph().PathsFor(topology.Target{Kind: "ListenerSet", Namespace: "shop", Name: "b"}))
	}
	if n := len(st.Graph().PathsFor(topology.Target{Kind: "Gateway", Namespace: "infra", Name: "gw"})); n != 1 {
		t.Fatalf("paths beneath the Gateway before the CRD: %d, want its listener's 1", n)
	}
	inf.installed = true
	if err := st.WatchKinds(nil); err != nil {
		t.Fatalf("WatchKinds once the CRD is installed: %v", err)
	}
	inf.Add(t, ls("b"))
	if n := lsPaths(); n != 1 {
		t.Errorf("paths beneath ListenerSet shop/b once watched: %d, want its listener's 1", n)
	}
}
