package webhook_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/test/gen"
	"github.com/precedent-dev/precedent/topology"
	"github.com/precedent-dev/precedent/webhook"
)

// TestSnapshotsRebuiltAfterChanges: a request right after a change sees it (the snapshot is built
// then if need be), and without any request the background builder rebuilds the snapshots already
// asked for once the changes settle, so the next request finds them built.
func TestSnapshotsRebuiltAfterChanges(t *testing.T) {
	w := gen.Generate(gen.Size{Gateways: 4, Routes: 40, Policies: 20})
	inf := newFakeInformers(t)
	st := webhook.NewState(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := st.Watch(ctx, inf, config.Defaults().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	for i := range w.Input.Gateways {
		inf.add(t, &w.Input.Gateways[i])
	}
	for i := range w.Input.HTTPRoutes {
		inf.add(t, &w.Input.HTTPRoutes[i])
	}
	ev, err := cel.New(0)
	if err != nil {
		t.Fatal(err)
	}
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
		inf.update(t, old, cur)
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
