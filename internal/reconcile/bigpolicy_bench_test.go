package reconcile

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/liveconfig"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
)

// BenchmarkReconcileUnderBigPolicy is the status controllers' work per change in test/deploy's
// (h): a Gateway carries a 5,000-rule policy (merge overrides), and small Gateway-level policies
// are created, updated and deleted in turn. After each change is applied to the State, the requests
// the status controller maps it to (the policy and its neighbours on its paths) and the Affected
// controller's (the Gateway) are reconciled, reading from a reader that copies objects on Get as
// controller-runtime's cache does (unless told not to), and writing status to a recorder that
// stores what it is given. ns/op is per change.
func BenchmarkReconcileUnderBigPolicy(b *testing.B) {
	inf := statetest.New(b)
	live := liveconfig.NewLive(settings.Defaults(), logr.Discard())
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := st.Watch(ctx, inf, live.Current().Registry().Kinds()); err != nil {
		b.Fatal(err)
	}
	ns := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "load", Labels: map[string]string{"kubernetes.io/metadata.name": "load"}}}
	ns.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	inf.Add(b, ns)
	gw := &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "load", Name: "gw", Generation: 1},
		Spec:       gwv1.GatewaySpec{GatewayClassName: "example", Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType}}},
	}
	inf.Add(b, gw)
	gvk := schema.GroupVersionKind{Group: "policy.precedent.dev", Version: "v1alpha1", Kind: "RateLimitPolicy"}
	k, ok := live.Current().Registry().Lookup(gvk.GroupKind())
	if !ok {
		b.Fatal("RateLimitPolicy is not managed by the default settings")
	}
	store := &benchStore{policies: map[types.NamespacedName]*unstructured.Unstructured{}, gateway: gw}
	obj := func(name string, i int, spec map[string]interface{}) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]interface{}{"spec": spec}}
		u.SetGroupVersionKind(gvk)
		u.SetNamespace("load")
		u.SetName(name)
		u.SetUID(types.UID("uid-" + name))
		u.SetGeneration(1)
		u.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)))
		store.rv++
		u.SetResourceVersion(fmt.Sprint(store.rv))
		return u
	}
	target := map[string]interface{}{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}
	small := func(limit int) map[string]interface{} {
		return map[string]interface{}{"x": map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(limit), "window": "1m"}}}}
	}
	limits := make(map[string]interface{}, 5000)
	for i := 0; i < 5000; i++ {
		limits[fmt.Sprintf("big-%04d", i)] = map[string]interface{}{"rates": []interface{}{map[string]interface{}{"limit": int64(100 + i), "window": "1m"}}}
	}
	big := obj("big-gateway-policy", 0, map[string]interface{}{"targetRef": target, "overrides": map[string]interface{}{"strategy": "merge", "limits": limits}})
	store.set(big)
	inf.Add(b, big)

	r := &Reconciler{Client: &benchClient{store: store}, Reader: store, Kind: k, Source: st, Settings: live, Log: logr.Discard(),
		pruned: &pruning{}, written: &ownWrites{last: map[types.NamespacedName]writeMark{}}, views: &views{m: map[types.NamespacedName]viewEntry{}}, holdings: &holdings{}, acceptance: &acceptance{}}
	a := &AffectedReconciler{Reconciler: *r}
	var livePolicies []string
	seq := 0
	change := func(i int) {
		var o *unstructured.Unstructured
		deleted := false
		switch i % 3 {
		case 0:
			seq++
			o = obj(fmt.Sprintf("s-%d", seq), i, map[string]interface{}{"targetRef": target, "defaults": map[string]interface{}{"limits": small(10 + i%90)}})
			store.set(o)
			inf.Add(b, o)
			livePolicies = append(livePolicies, o.GetName())
		case 1:
			old := store.policies[types.NamespacedName{Namespace: "load", Name: livePolicies[len(livePolicies)-1]}]
			o = old.DeepCopy()
			_ = unstructured.SetNestedField(o.Object, small(10+i%90), "spec", "defaults", "limits")
			o.SetGeneration(old.GetGeneration() + 1)
			store.rv++
			o.SetResourceVersion(fmt.Sprint(store.rv))
			store.set(o)
			inf.Update(b, old, o)
		case 2:
			if len(livePolicies) < 4 {
				return
			}
			key := types.NamespacedName{Namespace: "load", Name: livePolicies[0]}
			livePolicies = livePolicies[1:]
			o, deleted = store.policies[key], true
			delete(store.policies, key)
			inf.Delete(b, o)
		}
		if !deleted {
			o = store.policies[client.ObjectKeyFromObject(o)]
		}
		for _, req := range r.selfAndNeighbours(ctx, o) {
			if _, err := r.Reconcile(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		for _, req := range a.targetGateways(ctx, o) {
			if _, err := a.Reconcile(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := 0; i < 30; i++ { // warm: statuses written once, the live policies in place
		change(i)
	}
	writes := store.writes
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		change(30 + i)
	}
	b.StopTimer()
	b.ReportMetric(float64(store.writes-writes)/float64(b.N), "status-writes/op")
}

// benchStore is the cache of BenchmarkReconcileUnderBigPolicy: policies and one Gateway, copied on
// Get unless client.UnsafeDisableDeepCopy is given, as controller-runtime's cache reader does.
type benchStore struct {
	policies map[types.NamespacedName]*unstructured.Unstructured
	gateway  *gwv1.Gateway
	rv       int
	writes   int
}

func (s *benchStore) set(u *unstructured.Unstructured) { s.policies[client.ObjectKeyFromObject(u)] = u }

func (s *benchStore) Get(_ context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	o := &client.GetOptions{}
	o.ApplyOptions(opts)
	unsafe := o.UnsafeDisableDeepCopy != nil && *o.UnsafeDisableDeepCopy
	switch out := obj.(type) {
	case *gwv1.Gateway:
		s.gateway.DeepCopyInto(out)
		return nil
	case *unstructured.Unstructured:
		u, ok := s.policies[key]
		if !ok {
			return notFound(key)
		}
		if !unsafe {
			u = u.DeepCopy()
		}
		*out = *u
		return nil
	}
	return fmt.Errorf("benchStore: %T not held", obj)
}

func (s *benchStore) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return fmt.Errorf("benchStore: no lists")
}

// benchClient writes status into the store (the stored object becomes the one written, with the
// next resourceVersion, as the cache would hold it after the watch event); other writes are ignored.
type benchClient struct {
	client.Client
	store *benchStore
}

func (c *benchClient) Status() client.SubResourceWriter { return &benchStatus{store: c.store} }

type benchStatus struct {
	client.SubResourceWriter
	store *benchStore
}

func (w *benchStatus) Update(_ context.Context, obj client.Object, _ ...client.SubResourceUpdateOption) error {
	u := obj.(*unstructured.Unstructured)
	w.store.rv++
	w.store.writes++
	u.SetResourceVersion(fmt.Sprint(w.store.rv))
	w.store.set(u)
	return nil
}

func (w *benchStatus) Patch(context.Context, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
	return nil
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

func notFound(key client.ObjectKey) error {
	return apierrors.NewNotFound(schema.GroupResource{Group: "policy.precedent.dev", Resource: "ratelimitpolicies"}, key.Name)
}
