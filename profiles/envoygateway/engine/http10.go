package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/internal/topology"
)

// HTTP10 is clienttrafficpolicy.go translateHTTP1Settings for http1.http10.useDefaultHost: Envoy
// Gateway takes the listener's first hostname without a wildcard, else the hostname of its one
// route (per rule and match) with a hostname without a wildcard; when the listener has none and
// its routes give none, or more than one, it marks the policy Invalid. Rules are counted, not the
// matches within a rule (the graph does not keep them), so a rule with several matches is taken
// as one route.
func HTTP10(p *Policy, g *topology.Graph) field.ErrorList {
	if p.Kind != ClientTrafficPolicy || g == nil || !usesDefaultHost(p.Raw) {
		return nil
	}
	var errs field.ErrorList
	for i, t := range p.Targets {
		mine, _ := targetListeners(g, p.Ref.Namespace, t)
		for _, l := range mine {
			if l.l.Hostname != nil && *l.l.Hostname != "" && !strings.Contains(string(*l.l.Hostname), "*") {
				continue
			}
			n := defaultHostRoutes(g, l)
			if n == 1 {
				continue
			}
			why := "has only wildcard hostnames and no route with a hostname of its own"
			if n > 1 {
				why = fmt.Sprintf("has only wildcard hostnames and %d routes with a hostname of their own, so no one default", n)
			}
			errs = append(errs, field.Invalid(specPath.Child("http1", "http10", "useDefaultHost"), true,
				fmt.Sprintf("listener %s %s: Envoy Gateway cannot choose the HTTP/1.0 default host and marks the policy Invalid (targetRefs[%d]); give the listener a hostname", l.irName(), why, i)))
		}
	}
	return errs
}

func usesDefaultHost(spec map[string]interface{}) bool {
	h1, _ := spec["http1"].(map[string]interface{})
	h10, _ := h1["http10"].(map[string]interface{})
	b, _ := h10["useDefaultHost"].(bool)
	return b
}

// defaultHostRoutes counts the routes of listener l in Envoy Gateway's IR (one per HTTPRoute or
// GRPCRoute rule and hostname) whose hostname has no wildcard, stopping at 2.
func defaultHostRoutes(g *topology.Graph, l egListener) int {
	n := 0
	for _, i := range g.PathsFor(l.target()) {
		pa := g.Paths[i]
		if pa.RouteKind != "HTTPRoute" && pa.RouteKind != "GRPCRoute" {
			continue
		}
		r, ok := g.Route(topology.Target{Kind: pa.RouteKind, Namespace: pa.Route.Namespace, Name: pa.Route.Name})
		if !ok {
			continue
		}
		for _, h := range r.Hostnames {
			if !strings.Contains(h, "*") && topology.HostnamesIntersect(l.l.Hostname, []string{h}) {
				n++
			}
		}
		if n > 1 {
			return n
		}
	}
	return n
}
