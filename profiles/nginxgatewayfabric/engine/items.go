package engine

import (
	"sort"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Items are the effective settings of kind on every (Gateway, route) path its accepted policies
// reach, in `precedent effective`'s shape: spec holds the settings by their field paths, sources the
// policy each field comes from. A kind set on Gateways and routes (ClientSettingsPolicy,
// ProxySettingsPolicy, RateLimitPolicy, WAFPolicy, PayloadProcessor): the Gateway's policies'
// fields, each replaced by the route's where the route's policies set it (a list whole). A kind set
// on routes only (ObservabilityPolicy): the route's; on Gateways only (SnippetsPolicy,
// ExternalLoadBalancer): the Gateway's, on each of its routes. UpstreamSettingsPolicy: per Service
// the route sends to (spec.<service>.<field>), the merged fields of its policies.
func (w *World) Items(kind string, statuses map[key]*Status) []effective.Item {
	return w.itemsOn(kind, w.Policies, statuses, w.Graph.PathIndexes())
}

// itemsOn is Items on the paths of indexes paths, from pols (in precedence order) as statuses
// decides them.
func (w *World) itemsOn(kind string, pols []*Policy, statuses map[key]*Status, paths []int) []effective.Item {
	by := map[string][]*Policy{} // accepted policies by target, "Kind ns/name"
	for _, p := range pols {
		if st := StatusOf(statuses, p); p.Kind != kind || st == nil || !st.Accepted() {
			continue
		}
		for _, t := range p.Targets {
			k := t.Kind + " " + p.Ref.Namespace + "/" + t.Name
			by[k] = append(by[k], p)
		}
	}
	var out []effective.Item
	seen := map[[2]string]bool{}
	for _, i := range w.Graph.ServedPaths(paths, w.Controllers) {
		path := w.Graph.Paths[i]
		if path.Route.Name == "" || (path.RouteKind != "HTTPRoute" && path.RouteKind != "GRPCRoute") {
			continue
		}
		pk := [2]string{path.Gateway.String(), path.RouteKind + " " + path.Route.String()}
		if seen[pk] {
			continue // another listener of the same Gateway: the same settings
		}
		seen[pk] = true
		spec, sources := map[string]interface{}{}, map[string]string{}
		ks := Kinds[kind]
		switch {
		case kind == UpstreamSettingsPolicy:
			for _, svc := range w.backends(path.RouteKind, path.Route) {
				prefix := svc.Name + "." // a Service of another namespace is named with it
				if svc.Namespace != path.Route.Namespace {
					prefix = svc.String() + "."
				}
				apply(spec, sources, prefix, by["Service "+svc.String()])
			}
		case ks.httpOnly && path.RouteKind != "HTTPRoute":
		default:
			if _, ok := ks.targets["Gateway"]; ok {
				apply(spec, sources, "", by["Gateway "+path.Gateway.String()])
			}
			if _, ok := ks.targets[path.RouteKind]; ok {
				apply(spec, sources, "", by[pk[1]])
			}
		}
		if len(sources) == 0 {
			continue
		}
		out = append(out, effective.Item{Kind: kind, Gateway: path.Gateway.String(), Route: path.Route.String(), Spec: spec, Sources: sources})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Gateway != out[j].Gateway {
			return out[i].Gateway < out[j].Gateway
		}
		return out[i].Route < out[j].Route
	})
	return out
}

// apply sets the fields of pols, the accepted policies of one level (so no two set one field), in
// spec under prefix, over what a level above set. A list (kindSpec.lists) holds the values of every
// policy of the level that sets it, in precedence order, its sources joined by ", " (SourceRefs).
func apply(spec map[string]interface{}, sources map[string]string, prefix string, pols []*Policy) {
	lists := map[string][]interface{}{}
	var froms map[string][]string
	for _, p := range pols {
		for _, f := range p.SetFields() {
			if !isList(p.Kind, f) {
				setNested(spec, prefix+f, p.Fields[f])
				sources[prefix+f] = p.Ref.String()
				continue
			}
			if froms == nil {
				froms = map[string][]string{}
			}
			if l, ok := p.Fields[f].([]interface{}); ok {
				lists[f] = append(lists[f], l...)
			} else {
				lists[f] = append(lists[f], p.Fields[f])
			}
			froms[f] = append(froms[f], p.Ref.String())
		}
	}
	for f, l := range lists {
		setNested(spec, prefix+f, l)
		sources[prefix+f] = strings.Join(froms[f], ", ")
	}
}

// SourceRefs are the policies an item's source names: one, or for a list several joined by ", ".
func SourceRefs(from string) []string {
	if from == "" {
		return nil
	}
	return strings.Split(from, ", ")
}

// Holds reports whether the source from names the policy ref.
func Holds(from, ref string) bool {
	for _, r := range SourceRefs(from) {
		if r == ref {
			return true
		}
	}
	return false
}

func setNested(m map[string]interface{}, path string, v interface{}) {
	segs := strings.Split(path, ".")
	for _, s := range segs[:len(segs)-1] {
		next, ok := m[s].(map[string]interface{})
		if !ok {
			next = map[string]interface{}{}
			m[s] = next
		}
		m = next
	}
	m[segs[len(segs)-1]] = v
}

// backends are the Services the rules of an HTTPRoute or GRPCRoute send to (in its namespace, or
// in another where a ReferenceGrant allows it), sorted.
func (w *World) backends(kind string, k topology.Key) []topology.Key {
	var refs []gwv1.BackendObjectReference
	switch {
	case kind == "HTTPRoute" && w.HTTPRoutes[k] != nil:
		refs = backendRefs(w.HTTPRoutes[k], nil)
	case kind == "GRPCRoute" && w.GRPCRoutes[k] != nil:
		refs = backendRefs(nil, w.GRPCRoutes[k])
	}
	return w.backendServices(kind, k.Namespace, refs)
}

// backendRefs are the backendRefs of the rules of an HTTPRoute h or a GRPCRoute g (the other nil).
func backendRefs(h *gwv1.HTTPRoute, g *gwv1.GRPCRoute) []gwv1.BackendObjectReference {
	var refs []gwv1.BackendObjectReference
	if h != nil {
		for _, rule := range h.Spec.Rules {
			for _, b := range rule.BackendRefs {
				refs = append(refs, b.BackendObjectReference)
			}
		}
	}
	if g != nil {
		for _, rule := range g.Spec.Rules {
			for _, b := range rule.BackendRefs {
				refs = append(refs, b.BackendObjectReference)
			}
		}
	}
	return refs
}
