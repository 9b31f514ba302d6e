package engine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// eventCluster is a cluster of n HTTPRoutes, each sending to its own Backend with one Backend-level
// policy: ten routes behind each Gateway (n/10 Gateways in namespace infra, each with one
// Gateway-level policy and a listener admitting the namespaces labelled tier=web), ten routes in each
// namespace (n/10, team-0…), each route of a namespace behind a different Gateway.
type eventCluster struct {
	gateways []*gatewayv1.Gateway
	routes   []*gatewayv1.HTTPRoute
	ns       map[string]map[string]string
	policies []Policy
}

func newEventCluster(n int) *eventCluster {
	c := &eventCluster{ns: map[string]map[string]string{}}
	groups := n / 10
	for i := 0; i < groups; i++ {
		c.gateways = append(c.gateways, eventGateway(fmt.Sprintf("gw-%d", i), true))
		c.ns[fmt.Sprintf("team-%d", i)] = map[string]string{"tier": "web"}
		c.policies = append(c.policies, policy(fmt.Sprintf("infra/gw-%d-policy", i), at(i), gwRef(fmt.Sprintf("gw-%d", i)),
			inline("agents", sa(fmt.Sprintf("agents-%d/agent", i%5)), "search", "fetch"),
			inline("admins", sa("ops/admin"), "search", "fetch", "delete")))
	}
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("team-%d", i%groups)
		c.routes = append(c.routes, eventRoute(ns, fmt.Sprintf("route-%d", i), fmt.Sprintf("gw-%d", i/10), fmt.Sprintf("be-%d", i)))
		c.policies = append(c.policies, eventPolicy(ns, i, "search"))
	}
	sortByKey(c.policies)
	return c
}

// eventGateway is Gateway infra/name with one HTTP listener admitting the namespaces labelled
// tier=web (open) or its own namespace only.
func eventGateway(name string, open bool) *gatewayv1.Gateway {
	l := gatewayv1.Listener{Name: "web", Port: 80, Protocol: gatewayv1.HTTPProtocolType}
	if open {
		l.AllowedRoutes = &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: ptr.To(gatewayv1.NamespacesFromSelector),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "web"}}}}
	}
	return &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: name},
		Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{l}}}
}

// eventRoute is HTTPRoute ns/name from Gateway infra/gateway to the Backend ns/backend.
func eventRoute(ns, name, gateway, backend string) *gatewayv1.HTTPRoute {
	return &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: gatewayv1.HTTPRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: gatewayv1.ObjectName(gateway), Namespace: ptr.To(gatewayv1.Namespace("infra"))}}},
		Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
			Group: ptr.To(gatewayv1.Group(DefaultBackendGroup)), Kind: ptr.To(gatewayv1.Kind(DefaultBackendKind)), Name: gatewayv1.ObjectName(backend)}}}}}}}}
}

// eventPolicy is the Backend-level policy of Backend ns/be-i, granting tool to an agent.
func eventPolicy(ns string, i int, tool string) Policy {
	return policy(fmt.Sprintf("%s/be-%d-policy", ns, i), at(i), beRef(fmt.Sprintf("be-%d", i)),
		inline("agents", sa(fmt.Sprintf("agents-%d/agent", i%5)), tool, fmt.Sprintf("tool-%d", i%70)),
		inline("admins", sa("ops/admin"), "delete", "purge"))
}

func (c *eventCluster) build() (*Topology, *Grants) {
	t := TopologyOf(c.gateways, c.routes, c.ns, DefaultSettings())
	return &t, NewGrants(c.policies, &t, DefaultSettings())
}

var eventSizes = []int{1000, 10000}

// BenchmarkHTTPRouteEvent: one HTTPRoute event (route-0 sends to another Backend, and back) applied
// to the topology and to the grants: WithHTTPRoute then WithTopology.
func BenchmarkHTTPRouteEvent(b *testing.B) {
	for _, n := range eventSizes {
		c := newEventCluster(n)
		t, g := c.build()
		versions := [2]*gatewayv1.HTTPRoute{eventRoute("team-0", "route-0", "gw-0", "be-other"), c.routes[0]}
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var changed []string
				t, changed = t.WithHTTPRoute("team-0/route-0", versions[i%2])
				g = g.WithTopology(t, changed)
				i++
			}
		})
	}
}

// BenchmarkGatewayEvent: one Gateway event (gw-0's listener closed to other namespaces, and open
// again: its ten routes detach and attach) applied to the topology and to the grants.
func BenchmarkGatewayEvent(b *testing.B) {
	for _, n := range eventSizes {
		c := newEventCluster(n)
		t, g := c.build()
		versions := [2]*gatewayv1.Gateway{eventGateway("gw-0", false), eventGateway("gw-0", true)}
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var changed []string
				t, changed = t.WithGateway("infra/gw-0", versions[i%2])
				g = g.WithTopology(t, changed)
				i++
			}
		})
	}
}

// BenchmarkNamespaceEvent: one namespace relabelled (team-0 leaves tier=web, and comes back: its ten
// routes detach from ten Gateways and attach again) applied to the topology and to the grants.
func BenchmarkNamespaceEvent(b *testing.B) {
	for _, n := range eventSizes {
		c := newEventCluster(n)
		t, g := c.build()
		versions := [2]map[string]string{{"tier": "none"}, {"tier": "web"}}
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var changed []string
				t, changed = t.WithNamespace("team-0", versions[i%2])
				g = g.WithTopology(t, changed)
				i++
			}
		})
	}
}

// BenchmarkPolicyEvent: one policy event (Grants.Update), at each level: a Backend-level policy's
// rules change (the grants behind its Gateway are built again), and a Gateway-level one's.
func BenchmarkPolicyEvent(b *testing.B) {
	for _, n := range eventSizes {
		c := newEventCluster(n)
		_, g := c.build()
		be := [2]Policy{eventPolicy("team-0", 0, "other"), eventPolicy("team-0", 0, "search")}
		gw := [2]Policy{policy("infra/gw-0-policy", at(0), gwRef("gw-0"), inline("agents", sa("agents-0/agent"), "search")),
			policy("infra/gw-0-policy", at(0), gwRef("gw-0"), inline("agents", sa("agents-0/agent"), "search", "fetch"))}
		for _, level := range []struct {
			name string
			ps   [2]Policy
		}{{"backend", be}, {"gateway", gw}} {
			b.Run(fmt.Sprintf("%s/backends=%d", level.name, n), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					g = g.Update(level.ps[i%2].Key(), &level.ps[i%2])
					i++
				}
			})
		}
	}
}

// BenchmarkFullAccessBuild: what each of those events cost before, when the state built the
// topology and the grants whole (TopologyOf and NewGrants over the same cluster).
func BenchmarkFullAccessBuild(b *testing.B) {
	for _, n := range eventSizes {
		c := newEventCluster(n)
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.build()
			}
		})
	}
}

// TestEventClusterEvents: the benchmarks' events change what they say they change, and match a
// full build.
func TestEventClusterEvents(t *testing.T) {
	c := newEventCluster(100)
	topo, g := c.build()
	if got := len(topo.BackendsBehind("infra/gw-3")); got != 10 {
		t.Fatalf("the cluster has %d Backends behind a Gateway, want 10", got)
	}
	for _, ev := range []struct {
		name        string
		apply       func(*Topology) (*Topology, []string)
		wantChanged []string
	}{
		{"route", func(t *Topology) (*Topology, []string) {
			c.routes[0] = eventRoute("team-0", "route-0", "gw-0", "be-other")
			return t.WithHTTPRoute("team-0/route-0", c.routes[0])
		}, []string{"infra/gw-0"}},
		{"gateway", func(t *Topology) (*Topology, []string) {
			c.gateways[1] = eventGateway("gw-1", false)
			return t.WithGateway("infra/gw-1", c.gateways[1])
		}, []string{"infra/gw-1"}},
		{"namespace", func(t *Topology) (*Topology, []string) {
			c.ns["team-2"] = map[string]string{"tier": "none"}
			return t.WithNamespace("team-2", c.ns["team-2"])
		}, []string{"infra/gw-0", "infra/gw-2", "infra/gw-3", "infra/gw-4", "infra/gw-5", "infra/gw-6", "infra/gw-7", "infra/gw-8", "infra/gw-9"}},
	} {
		var changed []string
		topo, changed = ev.apply(topo)
		g = g.WithTopology(topo, changed)
		if diff := cmp.Diff(ev.wantChanged, changed); diff != "" {
			t.Errorf("%s event: changed (-want +got):\n%s", ev.name, diff)
		}
		ref, full := c.build()
		if diff := cmp.Diff(dumpTopology(ref), dumpTopology(topo)); diff != "" {
			t.Errorf("%s event: topology (-full build +incremental):\n%s", ev.name, diff)
		}
		if diff := cmp.Diff(dumpGrants(full), dumpGrants(g)); diff != "" {
			t.Errorf("%s event: grants (-full build +incremental):\n%s", ev.name, diff)
		}
	}
}
