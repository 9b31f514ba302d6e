package engine

import (
	"fmt"
	"sort"
	"strings"
)

// InboundRule is one rule of a proxy's inbound as Kuma builds it (inbound.Rule in
// pkg/plugins/policies/core/rules/inbound/inboundrules.go): a spec.rules item of a policy (one per
// match when it has matches), or for MeshTimeout a from item read as a rule without matches.
type InboundRule struct {
	Policy *Policy
	Path   string // "spec.rules[0]" or "spec.from[1]"
	Index  int    // the item's index in its list
	Match  *Match // nil: all the traffic of the inbound
	Conf   map[string]interface{}
	Rule   *Rule // nil for a from item
}

// InboundRules returns the rules of the proxy's inbounds in Kuma's order (BuildRules): the policies
// of kind that select the proxy, lowest priority first (inbound.Sort: CompareByPolicyAttributes then
// CompareByDisplayName, as Order), each policy's rules in their order, expanded one per match; then
// sorted stably by match (SortRules, CompareMatch in inbound/sort.go): a SPIFFE ID match before
// none, Exact before Prefix, then an SNI match before none. A policy with rules contributes its rules;
// one without, for MeshTimeout (is_from_as_rules), its from items. A MeshTrafficPermission's from
// items are not rules: Kuma applies them only to an inbound that no rules select
// (configureLegacyRules in meshtrafficpermission/plugin/v1alpha1/plugin.go).
func InboundRules(kind string, policies []Policy, proxy *Dataplane) []InboundRule {
	ordered := Order(kind, policies, proxy)
	var out []InboundRule
	for k := len(ordered) - 1; k >= 0; k-- {
		p := ordered[k]
		if !p.Kuma() {
			continue
		}
		switch {
		case len(p.Rules) > 0:
			for i := range p.Rules {
				r := &p.Rules[i]
				base := InboundRule{Policy: p, Path: ElementPath(Rules, i), Index: i, Conf: r.Conf, Rule: r}
				if r.CatchAll() {
					out = append(out, base)
					continue
				}
				for j := range r.Matches {
					ir := base
					ir.Match = &r.Matches[j]
					out = append(out, ir)
				}
			}
		case p.Kind == KindMeshTimeout:
			for i := range p.From {
				out = append(out, InboundRule{Policy: p, Path: ElementPath(From, i), Index: i, Conf: p.From[i].Conf})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return compareMatch(out[i].Match, out[j].Match) < 0 })
	return out
}

// compareMatch is Kuma's CompareByMatch (inbound/sort.go): negative when a sorts first.
func compareMatch(a, b *Match) int {
	var ma, mb Match
	if a != nil {
		ma = *a
	}
	if b != nil {
		mb = *b
	}
	switch {
	case ma.SpiffeID != nil && mb.SpiffeID == nil:
		return -1
	case ma.SpiffeID == nil && mb.SpiffeID != nil:
		return 1
	case ma.SpiffeID != nil:
		score := func(s *StringMatch) int {
			switch s.Type {
			case MatchExact:
				return 2
			case MatchPrefix:
				return 1
			}
			return 0
		}
		if d := score(mb.SpiffeID) - score(ma.SpiffeID); d != 0 {
			return d
		}
	}
	switch {
	case ma.SNI != nil && mb.SNI == nil:
		return -1
	case ma.SNI == nil && mb.SNI != nil:
		return 1
	}
	return 0
}

// MergeInbound returns the effective inbound configuration that the Kuma policies of kind give
// proxy from their rules, for all its clients (src nil) or for one client.
//
// MeshTimeout: the catch-all rules (and from items) merged as JSON merge patches, lowest priority
// first (MatchesAllIncomingTraffic): objects deeply, lists replaced, the last that sets a field wins.
// For a client with a SPIFFE ID, the rules whose matches hold a SPIFFE ID and set http.requestTimeout
// or http.streamIdleTimeout become routes, most specific first (matchedRouteTimeoutRules: Exact before
// Prefix, the longer prefix first); the first route whose match selects the client gives those two
// timeouts, merged from every such rule whose match subsumes the route's, least specific first
// (effectiveMatchedRouteRules, mergeSubsumingMatchedRouteConfs in meshtimeout/plugin/xds/configurer.go).
//
// MeshTrafficPermission (rbac_configurer.go createMatcher): for all clients, the deny, allow and
// allowWithShadowDeny lists of the rules concatenated in order; for one client, `action`: Deny when
// any deny match of any rule selects it (every deny is matched before any allow), else Allow when an
// allow or allowWithShadowDeny match selects it (AllowWithShadowDeny when one of the latter does: the
// shadow matcher logs a deny, and the origin is the rule it names), else Deny by default (no
// origin). The origin of Allow and Deny is the first rule in order with a match that selects the
// client, as Envoy names the matched action.
func MergeInbound(kind string, policies []Policy, proxy Dataplane, src *Source) Result {
	rules := InboundRules(kind, policies, &proxy)
	if strings.HasPrefix(kind, KindMeshTrafficPermission) {
		return mergePermissions(rules, src)
	}
	res := MergeEntries(Entries(Order(kind, policies, &proxy), From), Selector{})
	if src == nil || src.SpiffeID == "" {
		return res
	}
	routeTimeouts(rules, *src, &res)
	return res
}

// routeTimeouts overrides res's http.requestTimeout and http.streamIdleTimeout with those of the
// first matched route that selects src.
func routeTimeouts(rules []InboundRule, src Source, res *Result) {
	fields := []string{"requestTimeout", "streamIdleTimeout"}
	var matched []InboundRule
	for _, r := range rules {
		if r.Match == nil || r.Match.SpiffeID == nil {
			continue
		}
		http, _ := r.Conf["http"].(map[string]interface{})
		if http["requestTimeout"] != nil || http["streamIdleTimeout"] != nil {
			matched = append(matched, r)
		}
	}
	sort.SliceStable(matched, func(i, j int) bool { return routeSpecificity(matched[i].Match, matched[j].Match) < 0 })
	for _, route := range matched {
		if !route.Match.Matches(src) {
			continue
		}
		var applicable []InboundRule
		for _, r := range matched {
			if subsumes(r.Match, route.Match) {
				applicable = append(applicable, r)
			}
		}
		sort.SliceStable(applicable, func(i, j int) bool { return routeSpecificity(applicable[i].Match, applicable[j].Match) > 0 })
		for _, r := range applicable {
			http, _ := r.Conf["http"].(map[string]interface{})
			for _, f := range fields {
				if v, ok := http[f]; ok && v != nil {
					dst, ok := res.Conf["http"].(map[string]interface{})
					if !ok {
						dst = map[string]interface{}{}
						res.Conf["http"] = dst
					}
					dst[f] = copyValue(v)
					res.Origins["http."+f] = r.Policy.Name
				}
			}
		}
		return
	}
}

// routeSpecificity orders matched routes most specific first (compareMatchedRouteSpecificity,
// descending): by compareMatch, then the longer SPIFFE ID prefix first.
func routeSpecificity(a, b *Match) int {
	if c := compareMatch(a, b); c != 0 {
		return c
	}
	la, lb := prefixLen(a), prefixLen(b)
	if la == 0 || lb == 0 {
		return 0
	}
	return lb - la
}

func prefixLen(m *Match) int {
	if m == nil || m.SpiffeID == nil || m.SpiffeID.Type != MatchPrefix {
		return 0
	}
	return len(m.SpiffeID.Value)
}

// subsumes is matchedRouteSubsumes: the candidate's SPIFFE ID match covers the target's (Exact only
// the same Exact; Prefix any value with that prefix), and its SNI is absent or the same.
func subsumes(c, t *Match) bool {
	if c == nil || t == nil || c.SpiffeID == nil || t.SpiffeID == nil {
		return false
	}
	switch c.SpiffeID.Type {
	case MatchExact:
		if t.SpiffeID.Type != MatchExact || t.SpiffeID.Value != c.SpiffeID.Value {
			return false
		}
	case MatchPrefix:
		if !strings.HasPrefix(t.SpiffeID.Value, c.SpiffeID.Value) {
			return false
		}
	default:
		return false
	}
	if c.SNI == nil {
		return true
	}
	return t.SNI != nil && t.SNI.Type == c.SNI.Type && t.SNI.Value == c.SNI.Value
}

// mergePermissions is MergeInbound for MeshTrafficPermission.
func mergePermissions(rules []InboundRule, src *Source) Result {
	res := Result{Conf: map[string]interface{}{}, Origins: map[string]string{}}
	if src == nil {
		for _, name := range []string{ListDeny, ListAllow, ListAllowWithShadowDeny} {
			var list []interface{}
			for _, r := range rules {
				for _, m := range r.Rule.Lists[name] {
					res.Origins[fmt.Sprintf("%s[%d]", name, len(list))] = r.Policy.Name
					list = append(list, matchValue(m))
				}
			}
			if list != nil {
				res.Conf[name] = list
			}
		}
		return res
	}
	first := func(names ...string) *InboundRule {
		for i := range rules {
			for _, name := range names {
				for _, m := range rules[i].Rule.Lists[name] {
					if m.Matches(*src) {
						return &rules[i]
					}
				}
			}
		}
		return nil
	}
	if r := first(ListDeny); r != nil {
		res.Conf["action"], res.Origins["action"] = "Deny", r.Policy.Name
		return res
	}
	if r := first(ListAllow, ListAllowWithShadowDeny); r != nil {
		res.Conf["action"], res.Origins["action"] = "Allow", r.Policy.Name
		if s := first(ListAllowWithShadowDeny); s != nil {
			res.Conf["action"], res.Origins["action"] = "AllowWithShadowDeny", s.Policy.Name
		}
		return res
	}
	res.Conf["action"] = "Deny"
	return res
}

// matchValue renders a match as its JSON object.
func matchValue(m Match) map[string]interface{} {
	out := map[string]interface{}{}
	if m.SpiffeID != nil {
		out["spiffeID"] = map[string]interface{}{"type": m.SpiffeID.Type, "value": m.SpiffeID.Value}
	}
	if m.SNI != nil {
		out["sni"] = map[string]interface{}{"type": m.SNI.Type, "value": m.SNI.Value}
	}
	return out
}

// MergePermission is the action Kuma version v gives one client on proxy's inbound from the Kuma
// MeshTrafficPermissions (kind "MeshTrafficPermission.kuma.io"), the client named both ways: by its
// SPIFFE ID and SNI for the rules (src, nil: none given) and by its service and tags for the from
// items (from, nil: none given).
//
// Kuma 2.14 (plugin.go in meshtrafficpermission/plugin/v1alpha1 at v2.14.3): when rules select the
// inbound, its RBAC is built from the rules alone and every from item is left out; else from the
// from items (configureLegacyRules). Kuma 3.0 (#18774): the rules and the from items of the inbound
// are merged, every deny before any allow: Deny when a rule's deny match selects the client or the
// from items give it Deny explicitly, else Allow (or AllowWithShadowDeny) when either allows it, else
// Deny by default.
func MergePermission(v Version, kind string, policies []Policy, proxy Dataplane, src *Source, from *Selector) Result {
	hasRules := len(InboundRules(kind, policies, &proxy)) > 0
	var byRules, byFrom *Result
	if hasRules && src != nil {
		r := MergeInbound(kind, policies, proxy, src)
		byRules = &r
	}
	if from != nil && (!hasRules || v.mergesFromWithRules()) {
		r := Merge(kind, policies, proxy, From, *from)
		if _, ok := r.Conf["action"]; ok {
			byFrom = &r
		}
	}
	res := Result{Conf: map[string]interface{}{"action": "Deny"}, Origins: map[string]string{}}
	pick := func(r *Result, actions ...string) bool {
		if r == nil {
			return false
		}
		a, _ := r.Conf["action"].(string)
		origin, explicit := r.Origins["action"]
		if !explicit || !contains(actions, a) {
			return false
		}
		res.Conf["action"], res.Origins["action"] = a, origin
		return true
	}
	switch {
	case pick(byRules, "Deny"), pick(byFrom, "Deny"):
	case pick(byRules, "Allow", "AllowWithShadowDeny"), pick(byFrom, "Allow", "AllowWithShadowDeny"):
	}
	return res
}
