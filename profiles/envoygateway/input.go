package envoygateway

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/source"
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// The Gateway API kinds the engine reads besides the Gateways and HTTP/gRPC routes of the topology.
var (
	listenerSetKind    = schema.GroupKind{Group: topology.Group, Kind: "ListenerSet"}
	tcpRouteKind       = schema.GroupKind{Group: topology.Group, Kind: "TCPRoute"}
	udpRouteKind       = schema.GroupKind{Group: topology.Group, Kind: "UDPRoute"}
	referenceGrantKind = schema.GroupKind{Group: topology.Group, Kind: "ReferenceGrant"}
	namespaceKind      = schema.GroupKind{Kind: "Namespace"}
	reads              = []schema.GroupKind{listenerSetKind, tcpRouteKind, udpRouteKind, referenceGrantKind}
)

// world is one snapshot (which holds its policies by kind and ref, so an update finds the stored
// version it replaces).
type world struct {
	snap *engine.Snapshot
	// graph and controllers are the snapshot's topology and the GatewayClass controllers it serves
	// (engine.Input), for the warning on policies that reach only other controllers' Gateways.
	graph       *topology.Graph
	controllers []string
}

// worldObject is an object the world reads, with its kind and key read once.
type worldObject struct {
	gk  schema.GroupKind
	key topology.Key
	u   *unstructured.Unstructured
}

// objectOf is u with its kind and key.
func objectOf(gk schema.GroupKind, u *unstructured.Unstructured) worldObject {
	return worldObject{gk: gk, key: topology.Key{Namespace: u.GetNamespace(), Name: u.GetName()}, u: u}
}

// newWorld reads the objects (any mix of kinds: the topology's extra kinds and the policies of
// kinds) into a snapshot over graph.
func newWorld(graph *topology.Graph, objs []worldObject, labeled []engine.Object, nsLabels map[string]map[string]string, kinds map[string]bool, controllers []string) *world {
	in := engine.Input{Graph: graph, Objects: labeled, NamespaceLabels: nsLabels, Controllers: controllers}
	w := &world{graph: graph, controllers: controllers}
	for _, o := range objs {
		switch gk := o.gk; {
		case gk == listenerSetKind || gk == tcpRouteKind || gk == udpRouteKind:
			// Their attachment comes from the graph (the state and the offline input hold them);
			// here only their labels, for targetSelectors.
			in.Objects = append(in.Objects, engine.Object{Kind: gk.Kind, Key: o.key, Labels: o.u.GetLabels()})
		case gk == referenceGrantKind:
			in.ReferenceGrants = append(in.ReferenceGrants, referenceGrant(o.u))
		case gk.Group == engine.Group && kinds[gk.Kind]:
			if p, errs := engine.ReadAs(o.u, gk.Kind, engine.Ref{Namespace: o.key.Namespace, Name: o.key.Name}); len(errs) == 0 {
				in.Policies = append(in.Policies, asStored(p, graph))
			}
		}
	}
	w.snap = engine.NewSnapshot(in)
	return w
}

// stored reads a stored policy as the snapshot holds it: nil when it does not read (reported by
// validate; Envoy Gateway ignores it too); only its invalidity when its values are invalid over graph
// (reported by validate; Envoy Gateway marks it Invalid and applies nothing of it).
func stored(u *unstructured.Unstructured, graph *topology.Graph) *engine.Policy {
	p, errs := engine.Read(u)
	if len(errs) > 0 {
		return nil
	}
	return asStored(p, graph)
}

// asStored is the policy p read as the snapshot holds it over graph.
func asStored(p *engine.Policy, graph *topology.Graph) *engine.Policy {
	if len(invalid(p, graph)) > 0 {
		return engine.AsInvalid(p)
	}
	return p
}

// next is the world after event e, as newWorld would build it: a policy of kinds is stepped into the
// snapshot (engine.Snapshot.WithPolicy), a topology event onto the graph after it (WithTopology; a
// Namespace's, WithNamespace), the labels of a ListenerSet or L4 route (WithObject), a ReferenceGrant
// (WithReferenceGrant). It returns nil when the snapshot cannot step (nextTopology): the world is
// built whole on its next use.
func (w *world) next(e source.Event, kinds map[string]bool) any {
	if e.Topology {
		return w.nextTopology(e)
	}
	key := topology.Key{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}
	switch e.GroupKind {
	case listenerSetKind, tcpRouteKind, udpRouteKind:
		n := *w
		n.snap = w.snap.WithObject(e.GroupKind.Kind, key, e.Object.GetLabels(), e.Deleted)
		return &n
	case referenceGrantKind:
		u, ok := e.Object.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
		n := *w
		n.snap = w.snap.WithReferenceGrant(referenceGrant(u), e.Deleted)
		return &n
	}
	u, ok := e.Object.(*unstructured.Unstructured)
	if e.GroupKind.Group != engine.Group || !kinds[e.GroupKind.Kind] || !ok {
		return nil
	}
	var p *engine.Policy
	if !e.Deleted {
		p = stored(u, w.graph)
	}
	n := *w
	n.snap = w.snap.WithPolicy(e.GroupKind.Kind, engine.Ref{Namespace: key.Namespace, Name: key.Name}, p)
	return &n
}

// nextTopology is next for an event of the topology: the snapshot stepped onto the graph after it,
// then the ClientTrafficPolicies whose validity the listeners decide (engine.PortOverlap) read again.
func (w *world) nextTopology(e source.Event) any {
	var snap *engine.Snapshot
	switch {
	case e.Graph == nil:
		return nil
	case e.GroupKind == namespaceKind:
		snap = w.snap.WithNamespace(e.Graph, e.Object.GetName(), e.Object.GetLabels(), e.Deleted)
	case e.GroupKind.Group == topology.Group:
		snap = w.snap.WithTopology(e.Graph, e.GroupKind.Kind, topology.Key{Namespace: e.Object.GetNamespace(), Name: e.Object.GetName()}, e.Object.GetLabels(), e.Deleted)
	}
	if snap == nil {
		return nil
	}
	// A Namespace's labels may attach its ListenerSets to a Gateway or detach them: its listeners change.
	if e.GroupKind.Kind == "Gateway" || e.GroupKind.Kind == "ListenerSet" || e.GroupKind.Kind == "GatewayClass" || (e.GroupKind == namespaceKind && snap != w.snap) {
		for _, p := range snap.Stored(engine.ClientTrafficPolicy) {
			read := p.AsRead()
			if q := asStored(read, e.Graph); (p == read) != (q == read) { // valid before xor after
				snap = snap.WithPolicy(p.Kind, p.Ref, q)
			}
		}
	}
	return &world{snap: snap, graph: e.Graph, controllers: w.controllers}
}

// referenceGrant reads a ReferenceGrant's from and to lists.
func referenceGrant(u *unstructured.Unstructured) engine.ReferenceGrant {
	g := engine.ReferenceGrant{Namespace: u.GetNamespace(), Name: u.GetName()}
	str := func(m map[string]interface{}, k string) string { s, _ := m[k].(string); return s }
	from, _, _ := unstructured.NestedSlice(u.Object, "spec", "from")
	for _, raw := range from {
		if m, ok := raw.(map[string]interface{}); ok {
			g.From = append(g.From, engine.GrantFrom{Group: str(m, "group"), Kind: str(m, "kind"), Namespace: str(m, "namespace")})
		}
	}
	to, _, _ := unstructured.NestedSlice(u.Object, "spec", "to")
	for _, raw := range to {
		if m, ok := raw.(map[string]interface{}); ok {
			g.To = append(g.To, engine.GrantTo{Group: str(m, "group"), Kind: str(m, "kind"), Name: str(m, "name")})
		}
	}
	return g
}

// otherControllers is the warning (topology.CodeOtherControllers) for a policy of kind whose
// resolved scopes have no path in the snapshot but paths through Gateways of GatewayClasses whose
// controllers the world does not serve; none otherwise.
func (w *world) otherControllers(kind string, pr engine.Projection) []string {
	if w.controllers == nil || w.graph == nil || len(pr.After) > 0 {
		return nil
	}
	var un []int
	for _, sc := range pr.Resolution.Scopes {
		for _, i := range w.graph.PathsFor(topology.Target{Kind: sc.Kind, Namespace: sc.Namespace, Name: sc.Name, Section: sc.Section}) {
			if !w.graph.Serves(w.graph.Paths[i].Class, w.controllers) {
				un = append(un, i)
			}
		}
	}
	if len(un) == 0 {
		return nil
	}
	return []string{topology.OtherControllers(kind, w.graph.ClassesOf(un), w.controllers)}
}
