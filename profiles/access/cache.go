package access

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/source"
	engine "github.com/precedent-dev/precedent/profiles/access/engine"
)

// The access profile's derived cache (source.Derivation): under one set of settings, which Backends
// sit behind which Gateways, and the grants of each access kind's stored policies behind each
// Gateway, so that reviewing a write costs what the write changes, not the number of Backends behind
// a Gateway. A policy event brings the grants of its kind forward (access.Grants.Update); a Gateway,
// HTTPRoute or Namespace event, the topology and the grants behind the Gateways it changes
// (nextTopology).

// cached is the cache's value: the topology and the grants over it, by access kind. It is shared:
// read only.
type cached struct {
	topo   *engine.Topology
	grants map[schema.GroupKind]*engine.Grants
}

// derivation is the cache under the settings as.
func derivation(st source.Source, as engine.Settings) source.Derivation {
	return source.Derivation{Key: "access", Kinds: own, Topology: true, Params: as,
		Build: func() any { return build(st, as) },
		Next:  func(prev any, e source.Event) any { return next(prev.(*cached), e, as) },
	}
}

func derive(st source.Source, as engine.Settings) *cached {
	return st.Derive(derivation(st, as)).(*cached)
}

// Grants returns the grants of the stored policies of access kind gk behind each Gateway of
// Topology (access.Grants), under the settings as. The result is shared: read it only.
func Grants(st source.Source, gk schema.GroupKind, as engine.Settings) *engine.Grants {
	return derive(st, as).grants[gk]
}

// Topology returns which Backends of as's kind sit behind which Gateways (Gateway ← HTTPRoute
// parentRefs, HTTPRoute backendRefs → Backend, allowedRoutes selectors matched against the
// namespaces' labels). The result is shared: read it only.
func Topology(st source.Source, as engine.Settings) *engine.Topology {
	return derive(st, as).topo
}

// build computes the cache whole, from the state's Gateways, HTTPRoutes, namespaces and policies.
func build(st source.Source, as engine.Settings) *cached {
	gateways, routes, nsLabels := st.HTTPTopology()
	topo := engine.TopologyOf(gateways, routes, nsLabels, as)
	c := &cached{topo: &topo, grants: make(map[schema.GroupKind]*engine.Grants, len(own))}
	for _, gk := range own {
		c.grants[gk] = engine.NewGrants(parsed(st.Objects(gk), as), &topo, as)
	}
	return c
}

// parsed reads stored policies under as, sorted by namespace/name. A stored policy that no longer
// parses (e.g. its Backend kind is not the configured one any more) is left out.
func parsed(objs []*unstructured.Unstructured, as engine.Settings) []engine.Policy {
	list := make([]engine.Policy, 0, len(objs))
	for _, u := range objs {
		if p, errs := engine.Parse(u, stored(as)); len(errs) == 0 {
			list = append(list, p)
		}
	}
	slices.SortFunc(list, func(a, b engine.Policy) int { return strings.Compare(a.Key(), b.Key()) })
	return list
}

// stored is as for reading stored policies: mixing InlineTools and ExternalAuth is allowed, since a
// stored policy was admitted under the settings of its time and its grants are real.
func stored(as engine.Settings) engine.Settings {
	as.AllowMixedAuthorization = true
	return as
}

// next brings c forward with event e, nil when only a whole build can.
func next(c *cached, e source.Event, as engine.Settings) any {
	if e.Topology {
		return nextTopology(c, e)
	}
	g := c.grants[e.GroupKind]
	if g == nil {
		return nil
	}
	var p *engine.Policy
	if u, ok := e.Object.(*unstructured.Unstructured); ok && !e.Deleted {
		if q, errs := engine.Parse(u, stored(as)); len(errs) == 0 {
			p = &q // a policy that no longer parses is left out, as a build leaves it
		}
	}
	n := &cached{topo: c.topo, grants: maps.Clone(c.grants)}
	n.grants[e.GroupKind] = g.Update(e.Object.GetNamespace()+"/"+e.Object.GetName(), p)
	return n
}

// nextTopology brings c forward with a topology event. The access topology reads Gateways,
// HTTPRoutes and the namespaces' labels only: other events leave c as it is. Those are applied by the
// topology's copy-on-write per-object updates (WithGateway, WithHTTPRoute, WithNamespace), and the
// grants follow for the Gateways whose Backends changed (WithTopology), sharing the rest.
func nextTopology(c *cached, e source.Event) any {
	switch e.GroupKind {
	case gatewayKind, httpRouteKind, namespaceKind:
	default:
		return c
	}
	key := e.Object.GetNamespace() + "/" + e.Object.GetName()
	var topo *engine.Topology
	var changed []string
	switch e.GroupKind {
	case gatewayKind:
		gw, _ := e.Object.(*gwv1.Gateway) // nil: deleted
		if e.Deleted {
			gw = nil
		}
		topo, changed = c.topo.WithGateway(key, gw)
	case httpRouteKind:
		r, _ := e.Object.(*gwv1.HTTPRoute) // nil: deleted
		if e.Deleted {
			r = nil
		}
		topo, changed = c.topo.WithHTTPRoute(key, r)
	default:
		var labels map[string]string // nil: deleted
		if !e.Deleted {
			labels = e.Object.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
		}
		topo, changed = c.topo.WithNamespace(e.Object.GetName(), labels)
	}
	n := &cached{topo: topo, grants: make(map[schema.GroupKind]*engine.Grants, len(c.grants))}
	for gk, g := range c.grants {
		n.grants[gk] = g.WithTopology(topo, changed)
	}
	return n
}

// The topology kinds the access topology reads.
var (
	gatewayKind   = schema.GroupKind{Group: engine.GatewayGroup, Kind: engine.GatewayKind}
	httpRouteKind = schema.GroupKind{Group: engine.GatewayGroup, Kind: "HTTPRoute"}
	namespaceKind = schema.GroupKind{Kind: "Namespace"}
)
