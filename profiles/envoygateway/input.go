package envoygateway

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// The Gateway API kinds the engine reads besides the Gateways and HTTP/gRPC routes of the topology.
var (
	listenerSetKind    = schema.GroupKind{Group: topology.Group, Kind: "ListenerSet"}
	tcpRouteKind       = schema.GroupKind{Group: topology.Group, Kind: "TCPRoute"}
	udpRouteKind       = schema.GroupKind{Group: topology.Group, Kind: "UDPRoute"}
	referenceGrantKind = schema.GroupKind{Group: topology.Group, Kind: "ReferenceGrant"}
	reads              = []schema.GroupKind{listenerSetKind, tcpRouteKind, udpRouteKind, referenceGrantKind}
)

// world is one snapshot with the policies it holds, by kind and ref, so an update finds the stored
// version it replaces.
type world struct {
	snap  *engine.Snapshot
	byRef map[string]map[engine.Ref]*engine.Policy
}

// newWorld reads the objects (any mix of kinds: the topology's extra kinds and the policies of
// kinds) into a snapshot over graph.
func newWorld(graph *topology.Graph, objs []*unstructured.Unstructured, labeled []engine.Object, nsLabels map[string]map[string]string, kinds map[string]bool) *world {
	in := engine.Input{Graph: graph, Objects: labeled, NamespaceLabels: nsLabels}
	w := &world{byRef: map[string]map[engine.Ref]*engine.Policy{}}
	for _, u := range objs {
		gk := u.GroupVersionKind().GroupKind()
		key := topology.Key{Namespace: u.GetNamespace(), Name: u.GetName()}
		switch {
		case gk == listenerSetKind || gk == tcpRouteKind || gk == udpRouteKind:
			// Their attachment comes from the graph (the state and the offline input hold them);
			// here only their labels, for targetSelectors.
			in.Objects = append(in.Objects, engine.Object{Kind: gk.Kind, Key: key, Labels: u.GetLabels()})
		case gk == referenceGrantKind:
			in.ReferenceGrants = append(in.ReferenceGrants, referenceGrant(u))
		case gk.Group == engine.Group && kinds[gk.Kind]:
			p, errs := engine.Read(u)
			if len(errs) > 0 {
				continue // reported by validate; Envoy Gateway ignores it too
			}
			if len(invalid(p, graph)) > 0 {
				// Reported by validate; Envoy Gateway marks it Invalid and applies nothing of it.
				if p = engine.AsInvalid(p); p == nil {
					continue
				}
			}
			in.Policies = append(in.Policies, p)
			if w.byRef[p.Kind] == nil {
				w.byRef[p.Kind] = map[engine.Ref]*engine.Policy{}
			}
			w.byRef[p.Kind][p.Ref] = p
		}
	}
	w.snap = engine.NewSnapshot(in)
	return w
}

// referenceGrant reads a ReferenceGrant's from and to lists.
func referenceGrant(u *unstructured.Unstructured) engine.ReferenceGrant {
	g := engine.ReferenceGrant{Namespace: u.GetNamespace()}
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
