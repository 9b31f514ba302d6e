package state_test

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/state"
	"github.com/precedent-dev/precedent/internal/state/statetest"
	"github.com/precedent-dev/precedent/internal/topology"
)

// TestReserve: a state whose maps were sized before Watch, and sized again after it (which does
// nothing: the handlers hold some of the maps by then), builds its graph from every object its
// informers delivered.
func TestReserve(t *testing.T) {
	counts := map[schema.GroupKind]int{}
	for _, kind := range []string{"Gateway", "HTTPRoute", "ListenerSet", "TLSRoute"} {
		counts[schema.GroupKind{Group: topology.Group, Kind: kind}] = 100
	}
	inf := statetest.New(t)
	st := state.New(logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st.Reserve(counts)
	if err := st.Watch(ctx, inf, nil); err != nil {
		t.Fatal(err)
	}
	st.Reserve(counts)
	inf.Add(t, &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}})
	inf.Add(t, &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "ls"}})
	inf.Add(t, &gwv1.TLSRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "tls"}})
	g := st.Graph()
	if diff := cmp.Diff([]topology.Key{{Namespace: "infra", Name: "gw"}}, g.GatewayKeys()); diff != "" {
		t.Errorf("Gateways (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]topology.Key{{Namespace: "app", Name: "ls"}}, g.ListenerSetKeys()); diff != "" {
		t.Errorf("ListenerSets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]topology.Target{{Kind: "TLSRoute", Namespace: "app", Name: "tls"}}, g.RouteTargets()); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
}
