package state_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/test/gen"
)

// topologyState is a State watching the default kinds through fake informers that have delivered
// the world's Gateways and HTTPRoutes (not its policies), with a CEL evaluator for its snapshots.
// The State's background builder stops when the test ends.
func topologyState(t *testing.T, w gen.World) (*state.State, *statetest.Informers, *cel.Evaluator) {
	t.Helper()
	inf := statetest.New(t)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := st.Watch(ctx, inf, settings.Defaults().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	for i := range w.Input.Gateways {
		inf.Add(t, &w.Input.Gateways[i])
	}
	for i := range w.Input.HTTPRoutes {
		inf.Add(t, &w.Input.HTTPRoutes[i])
	}
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
	return st, inf, ev
}

// TestSnapshotsRebuiltAfterChanges: a request right after a change sees it (the snapshot is built
// then if need be), and without any request the background builder rebuilds the snapshots already
// asked for once the changes settle, so the next request finds them built.
func TestSnapshotsRebuiltAfterChanges(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 20})
	st, inf, ev := topologyState(t, w)
	first := st.Snapshot(w.Kind, ev)
	if st.Fresh(w.Kind, ev) != first {
		t.Fatal("the snapshot just built is not the stored one")
	}

	// moveRoute re-attaches route-0 to Gateway gw and delivers the update.
	n := int64(1)
	moveRoute := func(gw string) {
		old := &w.Input.HTTPRoutes[0]
		cur := old.DeepCopy()
		n++
		cur.Generation = n
		cur.Spec.ParentRefs = []gwv1.ParentReference{{Name: gwv1.ObjectName(gw), Namespace: ptr.To(gwv1.Namespace("infra"))}}
		inf.Update(t, old, cur)
		w.Input.HTTPRoutes[0] = *cur
	}
	route := topology.Target{Kind: "HTTPRoute", Namespace: w.Input.HTTPRoutes[0].Namespace, Name: w.Input.HTTPRoutes[0].Name}
	gatewayOf := func(g *topology.Graph) string {
		paths := g.PathsFor(route)
		if len(paths) == 0 {
			return ""
		}
		return g.Paths[paths[0]].Gateway.Name
	}

	moveRoute("gw-3")
	if got := gatewayOf(st.Snapshot(w.Kind, ev).Graph); got != "gw-3" {
		t.Fatalf("the request right after the change sees route-0 on %q, want gw-3", got)
	}

	moveRoute("gw-2")
	deadline := time.Now().Add(10 * time.Second)
	var built = st.Fresh(w.Kind, ev)
	for built == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		built = st.Fresh(w.Kind, ev)
	}
	if built == nil {
		t.Fatal("no snapshot was built in the background within 10s of the change")
	}
	if got := gatewayOf(built.Graph); got != "gw-2" {
		t.Errorf("the snapshot built in the background sees route-0 on %q, want gw-2", got)
	}
	if st.Snapshot(w.Kind, ev) != built {
		t.Error("the next request does not get the snapshot built in the background")
	}
}

// TestRemovedKindNotRebuilt: once the settings stop managing a kind, its snapshot is dropped, so the
// background builder (which rebuilds the kept snapshots) no longer rebuilds it after changes, while
// it still rebuilds the managed kinds'; a request for the kind (as one arriving while the settings
// change) is still answered, and what it builds is not kept.
func TestRemovedKindNotRebuilt(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 20})
	st, inf, ev := topologyState(t, w)
	kinds := settings.Defaults().Registry().Kinds()
	st.Managed(kinds)
	var removed, kept []policy.Kind
	for _, k := range kinds {
		if k.GVK.GroupKind() == w.Kind.GVK.GroupKind() {
			removed = append(removed, k)
		} else {
			kept = append(kept, k)
		}
	}
	if len(removed) != 1 || len(kept) == 0 {
		t.Fatalf("want the world's kind and at least one other managed kind, have %v", kinds)
	}
	for _, k := range kinds {
		st.Snapshot(k, ev)
	}
	st.Managed(kept)
	if st.Fresh(removed[0], ev) != nil {
		t.Errorf("the snapshot of %s is still kept once the kind is no longer managed", removed[0].GVK.Kind)
	}
	if st.Fresh(kept[0], ev) == nil {
		t.Errorf("the snapshot of %s, still managed, is dropped", kept[0].GVK.Kind)
	}

	// A route change makes every snapshot stale; the builder rebuilds the managed ones only.
	old := &w.Input.HTTPRoutes[0]
	cur := old.DeepCopy()
	cur.Generation++
	cur.Spec.ParentRefs = []gwv1.ParentReference{{Name: "gw-3", Namespace: ptr.To(gwv1.Namespace("infra"))}}
	inf.Update(t, old, cur)
	deadline := time.Now().Add(10 * time.Second)
	for st.Fresh(kept[0], ev) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the managed kind's snapshot was not rebuilt within 10s of the change")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // what the builder does next, it does within this
	if st.Fresh(removed[0], ev) != nil {
		t.Errorf("the snapshot of %s, no longer managed, was rebuilt after the change", removed[0].GVK.Kind)
	}
	if snap := st.Snapshot(removed[0], ev); snap == nil || len(snap.Graph.PathsFor(topology.Target{Kind: "HTTPRoute", Namespace: cur.Namespace, Name: cur.Name})) == 0 {
		t.Error("a request for the kind no longer managed gets no snapshot of the current topology")
	}
	if st.Fresh(removed[0], ev) != nil {
		t.Error("the snapshot built for a request on a kind no longer managed is kept")
	}
}

// TestPrepareBuildsSnapshotsBeforeReady: a freshly started state reports nothing prepared, and after
// Prepare (what Register runs before the replica reports ready) the snapshot of every managed kind
// is built from the whole lists, so the first admission does not build it.
func TestPrepareBuildsSnapshotsBeforeReady(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 20})
	st, _, _ := topologyState(t, w)
	if st.Prepared() {
		t.Fatal("prepared before Prepare")
	}
	s := settings.Defaults()
	if err := st.PrepareSnapshots(s.Registry().Kinds(), s.CELCostLimit); err != nil {
		t.Fatal(err)
	}
	st.MarkPrepared() // what profiles.Prepare does once every profile has prepared
	if !st.Prepared() {
		t.Fatal("not prepared after Prepare")
	}
	ev, err := st.Evaluator(s.CELCostLimit)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range s.Registry().Kinds() {
		if st.Fresh(k, ev) == nil {
			t.Errorf("the snapshot of %s is not built after Prepare", k.GVK.Kind)
		}
	}
}

// TestAwaitCaughtIsWokenByTheEvent: a reader waiting for an event on an object is woken when the
// state applies it (no polling), and gives up when its context ends without it.
func TestAwaitCaughtIsWokenByTheEvent(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 2, Routes: 4, Policies: 2})
	st, inf, _ := topologyState(t, w)
	old := &w.Input.HTTPRoutes[0]
	cur := old.DeepCopy()
	cur.ResourceVersion = "7"
	cur.Generation = 2

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if st.AwaitCaught(ctx, cur, false) {
		t.Fatal("caught an event the informer never delivered")
	}

	done := make(chan bool)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- st.AwaitCaught(ctx, cur, false)
	}()
	inf.Update(t, old, cur)
	if !<-done {
		t.Fatal("AwaitCaught returned without the event after it was delivered")
	}
	if !st.Caught(cur, false) {
		t.Fatal("Caught is false after AwaitCaught returned true")
	}
}

// TestAwaitCaughtPastADeletion: under churn the status reconciler may ask about an object the state
// has already applied and seen deleted (its create event, delivered to the reconciler's handler
// after the state's handler applied the delete): the state is past that event, and the reader must
// not wait out its timeout (it did, 5 s per such event, and the reconciler's events fell behind).
// An object of a version the state has not reached is still waited for.
func TestAwaitCaughtPastADeletion(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 2, Routes: 4, Policies: 2})
	st, inf, _ := topologyState(t, w)
	gone := w.Input.HTTPRoutes[0].DeepCopy()
	gone.Name, gone.ResourceVersion = "short-lived", "900"
	inf.Add(t, gone)
	deleted := gone.DeepCopy()
	deleted.ResourceVersion = "901"
	inf.Delete(t, deleted)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if !st.AwaitCaught(ctx, gone, false) {
		t.Error("waited for the create of an object the state applied and saw deleted")
	}
	later := gone.DeepCopy()
	later.Name, later.ResourceVersion = "not-yet", "902"
	if st.AwaitCaught(ctx, later, false) {
		t.Error("caught an object of a version the state has not reached")
	}
}
