package engine

import (
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/topology"
)

// Grant is what one ReferenceGrant allows: routes of FromKind (HTTPRoute or GRPCRoute) in
// FromNamespace to send to a Service of ToNamespace, named ToName ("": any).
type Grant struct {
	FromKind, FromNamespace string
	ToNamespace, ToName     string
}

// A target exists only in NGINX Gateway Fabric's graph: processPolicies (internal/controller/state/
// graph/policies.go) looks a Gateway up among the Gateways of its GatewayClass (processGateways), a
// route among the routes that name such a Gateway as a parent (buildRoutesForGateways), and a
// Service among the Services such routes send to (buildReferencedServices); a policy none of whose
// targets is found there is skipped and gets no status.

// servedGateway reports whether Gateway k exists and is of a GatewayClass the kinds' controllers
// serve (topology.Graph.Serves: a class the input lacks counts as served).
func (w *World) servedGateway(k topology.Key) bool {
	gw, ok := w.Graph.Gateway(k)
	return ok && w.Graph.Serves(string(gw.Spec.GatewayClassName), w.Controllers)
}

// routeInGraph reports whether the route of kind exists and names a served Gateway as a parent,
// directly or through a ListenerSet (buildHTTPRoute and buildGRPCRoute return nil otherwise).
func (w *World) routeInGraph(kind string, k topology.Key) bool {
	return w.routeServed(kind, k, w.servedGateway)
}

// routeServed is routeInGraph, with served telling whether a Gateway is served.
func (w *World) routeServed(kind string, k topology.Key, served func(topology.Key) bool) bool {
	r, ok := w.Graph.Route(topology.Target{Kind: kind, Namespace: k.Namespace, Name: k.Name})
	if !ok {
		return false
	}
	for _, ref := range r.Parents {
		ns := k.Namespace
		if ref.Namespace != nil {
			ns = string(*ref.Namespace)
		}
		pk := topology.Key{Namespace: ns, Name: string(ref.Name)}
		switch {
		case ref.Kind == nil || *ref.Kind == "Gateway":
			if served(pk) {
				return true
			}
		case *ref.Kind == "ListenerSet":
			if ls, ok := w.Graph.ListenerSet(pk); ok {
				gns := ns
				if ls.Spec.ParentRef.Namespace != nil {
					gns = string(*ls.Spec.ParentRef.Namespace)
				}
				if served(topology.Key{Namespace: gns, Name: string(ls.Spec.ParentRef.Name)}) {
					return true
				}
			}
		}
	}
	return false
}

// referenced are the Services the routes of the graph send to (buildReferencedServices via
// addServicesFromL7RouteRules): a backendRef's Service in the route's namespace, or in the namespace
// it names when a ReferenceGrant allows it (validateRouteBackendRef); whether the Service object
// exists does not matter to NGINX Gateway Fabric.
func (w *World) referenced() map[topology.Key]bool {
	idx := w.indexes().routes
	idx.refOnce.Do(func() {
		idx.referenced = w.referencedServices()
	})
	return idx.referenced
}

// referencedServices computes referenced: each route read once, from the map's entries (a 10x
// world's routes looked up again by key cost a cache miss each), each Gateway's service decided
// once.
func (w *World) referencedServices() map[topology.Key]bool {
	out := make(map[topology.Key]bool, len(w.HTTPRoutes)+len(w.GRPCRoutes))
	gateways := map[topology.Key]bool{}
	served := func(k topology.Key) bool {
		s, ok := gateways[k]
		if !ok {
			s = w.servedGateway(k)
			gateways[k] = s
		}
		return s
	}
	add := func(kind string, k topology.Key, refs []gwv1.BackendObjectReference) {
		if !w.routeServed(kind, k, served) {
			return
		}
		for _, b := range refs {
			if svc, ok := w.backendService(kind, k.Namespace, b); ok {
				out[svc] = true
			}
		}
	}
	for k, r := range w.HTTPRoutes {
		add("HTTPRoute", k, backendRefs(r, nil))
	}
	for k, r := range w.GRPCRoutes {
		add("GRPCRoute", k, backendRefs(nil, r))
	}
	return out
}

// granted reports whether a route of kind in namespace from may send to Service to.
func (w *World) granted(kind, from string, to topology.Key) bool {
	if from == to.Namespace {
		return true
	}
	for _, g := range w.Grants {
		if g.FromKind == kind && g.FromNamespace == from && g.ToNamespace == to.Namespace && (g.ToName == "" || g.ToName == to.Name) {
			return true
		}
	}
	return false
}

// backendServices are the Services the backendRefs refs of a route of kind in namespace ns name,
// granted ones only.
func (w *World) backendServices(kind, ns string, refs []gwv1.BackendObjectReference) []topology.Key {
	set := map[topology.Key]bool{}
	for _, b := range refs {
		if k, ok := w.backendService(kind, ns, b); ok {
			set[k] = true
		}
	}
	return sortedTopoKeys(set)
}

// backendService is the Service backendRef b of a route of kind in namespace ns names, if it names
// one that the route may send to.
func (w *World) backendService(kind, ns string, b gwv1.BackendObjectReference) (topology.Key, bool) {
	if (b.Kind != nil && *b.Kind != "Service") || (b.Group != nil && *b.Group != "" && *b.Group != "core") {
		return topology.Key{}, false
	}
	k := topology.Key{Namespace: ns, Name: string(b.Name)}
	if b.Namespace != nil {
		k.Namespace = string(*b.Namespace)
	}
	return k, w.granted(kind, ns, k)
}

func sortedTopoKeys(set map[topology.Key]bool) []topology.Key {
	out := make([]topology.Key, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Grants are what a ReferenceGrant allows routes: each from entry of an HTTPRoute or GRPCRoute, with
// each to entry of a Service (core group).
func Grants(u *unstructured.Unstructured) []Grant {
	str := func(m map[string]interface{}, k string) string { s, _ := m[k].(string); return s }
	from, _, _ := unstructured.NestedSlice(u.Object, "spec", "from")
	to, _, _ := unstructured.NestedSlice(u.Object, "spec", "to")
	var out []Grant
	for _, rf := range from {
		f, ok := rf.(map[string]interface{})
		if !ok || str(f, "group") != topology.Group || (str(f, "kind") != "HTTPRoute" && str(f, "kind") != "GRPCRoute") {
			continue
		}
		for _, rt := range to {
			t, ok := rt.(map[string]interface{})
			if !ok || str(t, "group") != "" || str(t, "kind") != "Service" {
				continue
			}
			out = append(out, Grant{FromKind: str(f, "kind"), FromNamespace: str(f, "namespace"), ToNamespace: u.GetNamespace(), ToName: str(t, "name")})
		}
	}
	return out
}
