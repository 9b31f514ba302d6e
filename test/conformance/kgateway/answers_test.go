package kgateway

import (
	"sort"
	"strconv"
	"strings"

	"github.com/precedent-dev/precedent/profiles/kgateway/engine"
)

// mergeMeta is the filter metadata kgateway's translator writes on each Envoy route: per merge
// key, the TrafficPolicies whose value is in effect (pkg/kgateway/extensions2/plugins/trafficpolicy,
// the policy's MergeOrigins).
const mergeMeta = "merge.TrafficPolicy.gateway.kgateway.dev"

// ruleKey is one rule of one route.
type ruleKey struct {
	Route engine.Key
	Rule  int
}

func (r ruleKey) String() string { return r.Route.String() + "#" + strconv.Itoa(r.Rule) }

// answers are one side's answers to the three questions on a case.
type answers struct {
	// Effects: per route rule, per TrafficPolicy field, the policies whose value is in effect.
	Effects map[ruleKey]map[string][]string
	// Accepted: per policy, whether it is accepted (kgateway: only the policies it wrote status for).
	Accepted map[string]bool
	// Served: the delegated routes (routes without a parentRef to a Gateway or ListenerSet) that serve traffic.
	Served map[string]bool
}

// renamed are the merge keys not named as their TrafficPolicy field
// (pkg/kgateway/extensions2/plugins/trafficpolicy/merge.go, the keys of each mergeX).
var renamed = map[string]string{"jwt": "jwtAuth", "oidc": "oauth2", "decompression": "compression"}

// field is the TrafficPolicy field of a merge key ("rateLimit.local" → "rateLimit").
func field(mergeKey string) string {
	if f, ok := renamed[mergeKey]; ok {
		return f
	}
	if i := strings.IndexByte(mergeKey, '.'); i > 0 {
		return mergeKey[:i]
	}
	return mergeKey
}

// kgatewayAnswers reads a golden: the merge metadata of each Envoy route (named
// `…-httproute-<name>-<namespace>-<rule>-<match>…`, pkg/kgateway/translator/irtranslator), the
// Accepted condition of each policy's status, and the routes the Envoy routes come from.
func kgatewayAnswers(c corpusCase, w *engine.World) answers {
	a := answers{Effects: map[ruleKey]map[string][]string{}, Accepted: map[string]bool{}, Served: map[string]bool{}}
	rcs, _ := first(c.Out, "Routes", "routes").([]interface{})
	for _, rc := range rcs {
		vhs, _ := get(rc, "virtualHosts").([]interface{})
		for _, vh := range vhs {
			// a Gateway's or listener's policy sits on the route configuration (or virtual host);
			// a route's own value of the same merge key replaces it
			outer := merged(metaOf(rc), metaOf(vh))
			outerFilters := filtersOf(rc, vh)
			rs, _ := get(vh, "routes").([]interface{})
			for _, r := range rs {
				name, _ := get(r, "name").(string)
				rk, ok := routeOf(name, w)
				if !ok {
					continue
				}
				if delegated(w, rk.Route) {
					a.Served[rk.Route.String()] = true
				}
				meta := merged(outer, metaOf(r))
				for k, v := range stillOn(outer, outerFilters, metaOf(r), filtersOf(r)) {
					meta[k] = append(append([]interface{}(nil), v...), meta[k].([]interface{})...)
				}
				effects := a.Effects[rk]
				if effects == nil {
					effects = map[string][]string{}
					a.Effects[rk] = effects
				}
				for k, v := range meta {
					vs, _ := v.([]interface{})
					for _, x := range vs {
						s, _ := x.(string)
						effects[field(k)] = addOnce(effects[field(k)], strings.TrimPrefix(s, engine.Group+"/"+engine.TrafficPolicy+"/"))
					}
				}
			}
		}
	}
	pols, _ := get(get(c.Out, "Statuses"), "policies").(map[string]interface{})
	for k, st := range pols {
		if !strings.HasPrefix(k, engine.TrafficPolicy+"/") {
			continue
		}
		ancs, _ := get(st, "ancestors").([]interface{})
		ok := len(ancs) > 0
		for _, anc := range ancs {
			conds, _ := get(anc, "conditions").([]interface{})
			for _, cd := range conds {
				if get(cd, "type") == "Accepted" && get(cd, "status") != "True" {
					ok = false
				}
			}
		}
		a.Accepted[strings.TrimPrefix(k, engine.TrafficPolicy+"/")] = ok
	}
	return a
}

// providerFilters are the merge keys of the policies that run one Envoy filter per provider
// (GatewayExtension), with the prefix of their filters' names, and the name of the filter that
// turns all of them off on a route (pkg/kgateway/extensions2/plugins/trafficpolicy: handleExtAuth,
// handleExtProc, handleJwt, handleGlobalRateLimit).
var providerFilters = map[string][2]string{
	"extAuth":          {"ext_auth/", "global_disable/ext_auth"},
	"extProc":          {"ext_proc/", "global_disable/ext_proc"},
	"jwt":              {"jwt/", "global_disable/jwt"},
	"rateLimit.global": {"ratelimit/", "global_disable/ratelimit"},
}

// headerMutation is the name of Envoy's header mutation filter.
const headerMutation = "envoy.extensions.filters.http.header_mutation"

// stillOn are the provider merge keys whose Gateway or listener filter a route leaves on beside its
// own: the route names another provider, and neither turns that filter off nor configures it.
func stillOn(outer map[string]interface{}, outerFilters map[string]bool, route map[string]interface{}, routeFilters map[string]bool) map[string][]interface{} {
	out := map[string][]interface{}{}
	// Envoy's header_mutation filter applies the per-route configuration of every level, the route's,
	// its virtual host's and its route configuration's (most_specific_header_mutations_wins unset;
	// pkg/kgateway/extensions2/plugins/trafficpolicy/header_modifiers.go handleHeaderModifiers)
	if o, ok := outer["headerModifiers"].([]interface{}); ok && route["headerModifiers"] != nil && outerFilters[headerMutation] {
		out["headerModifiers"] = o
	}
	for k, pf := range providerFilters {
		o, ok := outer[k].([]interface{})
		if !ok || route[k] == nil || routeFilters[pf[1]] {
			continue
		}
		for f := range outerFilters {
			if strings.HasPrefix(f, pf[0]) && f != "ratelimit/local" && !routeFilters[f] {
				out[k] = o
			}
		}
	}
	return out
}

// filtersOf are the names of the per-route filter configurations of Envoy objects.
func filtersOf(xs ...interface{}) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		m, _ := get(x, "typedPerFilterConfig").(map[string]interface{})
		for k := range m {
			out[k] = true
		}
	}
	return out
}

// metaOf is the merge metadata of an Envoy object.
func metaOf(x interface{}) map[string]interface{} {
	m, _ := get(get(get(x, "metadata"), "filterMetadata"), mergeMeta).(map[string]interface{})
	return m
}

// merged is outer with inner's keys replacing it.
func merged(outer, inner map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range outer {
		out[k] = v
	}
	for k, v := range inner {
		out[k] = v
	}
	return out
}

// translated are the Gateways a golden holds a status for (the Gateway the test translates); nil
// when the golden has no statuses (the setup goldens translate every Gateway).
func translated(c corpusCase) map[engine.Key]bool {
	gws, ok := get(get(c.Out, "Statuses"), "gateways").(map[string]interface{})
	if !ok {
		return nil
	}
	out := map[engine.Key]bool{}
	for k := range gws {
		if ns, n, ok := strings.Cut(k, "/"); ok {
			out[engine.Key{Namespace: ns, Name: n}] = true
		}
	}
	return out
}

// precedentAnswers are the engine's answers on the case's objects.
func precedentAnswers(c corpusCase, w *engine.World) answers {
	a := answers{Effects: map[ruleKey]map[string][]string{}, Accepted: map[string]bool{}, Served: map[string]bool{}}
	gws := translated(c)
	v := engine.View{World: w}
	for _, rk := range w.RouteKeys() {
		for _, p := range v.Paths(rk) {
			gw := p.Parent.Key
			if p.Parent.Kind != "Gateway" {
				if ls := w.ListenerSets[gw]; ls != nil {
					gw = ls.Parent
				}
			}
			if gws != nil && !gws[gw] {
				continue
			}
			if delegated(w, rk) {
				a.Served[rk.String()] = true
			}
			key := ruleKey{rk, p.Leaf().Rule}
			effects := a.Effects[key]
			if effects == nil {
				effects = map[string][]string{}
				a.Effects[key] = effects
			}
			for f, val := range v.Compute(p).Fields {
				for _, s := range val.Sources {
					effects[f] = addOnce(effects[f], s.String())
				}
			}
		}
	}
	for _, o := range c.Objects {
		if o.GetKind() == engine.TrafficPolicy {
			_, errs := engine.Read(o)
			a.Accepted[o.GetNamespace()+"/"+o.GetName()] = len(errs) == 0
		}
	}
	return a
}

// routeOf finds the route and rule an Envoy route name comes from: the longest route key whose
// `httproute-<name>-<namespace>-` the name holds, and the rule index after it.
func routeOf(name string, w *engine.World) (ruleKey, bool) {
	best, bestLen := ruleKey{}, 0
	for _, k := range w.RouteKeys() {
		tag := "-httproute-" + k.Name + "-" + k.Namespace + "-"
		i := strings.Index(name, tag)
		if i < 0 || len(tag) <= bestLen {
			continue
		}
		rest := name[i+len(tag):]
		j := strings.IndexByte(rest, '-')
		if j < 0 {
			continue
		}
		n, err := strconv.Atoi(rest[:j])
		if err != nil {
			continue
		}
		best, bestLen = ruleKey{k, n}, len(tag)
	}
	return best, bestLen > 0
}

// delegated reports whether route k has no parentRef to a Gateway or ListenerSet: it serves only
// through delegation.
func delegated(w *engine.World, k engine.Key) bool {
	r := w.Routes[k]
	return r != nil && len(r.Gateways) == 0
}

func addOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	list = append(list, s)
	sort.Strings(list)
	return list
}

func get(x interface{}, k string) interface{} {
	m, _ := x.(map[string]interface{})
	return m[k]
}

func first(m map[string]interface{}, keys ...string) interface{} {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}
